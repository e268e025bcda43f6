package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// vm.cpus_sweep's bad values are refused naming the key; a good one
// loads from the file, the environment and the flag alike.
func TestCPUsSweep(t *testing.T) {
	wantRefused(t, []refusal{
		{"vm: {cpus_sweep: [8]}\n", "vm.cpus_sweep"},
		{"vm: {cpus_sweep: [2, 0]}\n", "vm.cpus_sweep"},
		{"vm: {cpus_sweep: [2, 513]}\n", "vm.cpus_sweep"},
		{"vm: {cpus_sweep: [2, 8, 2]}\n", "vm.cpus_sweep"},
		{"vm: {cpus: 2, max_cpus: 16, cpus_sweep: [2, 32]}\n", "vm.cpus_sweep"},
		{"vm: {cpus: 1, cpus_sweep: [1, 2]}\nexecutor: {parallel: 2}\n", "vm.cpus_sweep"},
		{"vm: {cpus_sweep: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}\n", "vm.cpus_sweep"},
	})
	c, _, err := Load(writeConfig(t, "vm: {cpus: 2, max_cpus: 16, cpus_sweep: [16, 2, 8]}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.SweepCounts(), []int{16, 2, 8}) || !strings.Contains(c.YAML(), "cpus_sweep:") {
		t.Fatalf("sweep %v, stored:\n%s", c.SweepCounts(), c.YAML())
	}
	// Without a sweep the stored configuration has no trace of the key.
	if d, _, err := Load(writeConfig(t, "experiment: x\n"), nil); err != nil || strings.Contains(d.YAML(), "cpus_sweep") || len(d.SweepCounts()) != 0 {
		t.Fatalf("a configuration without a sweep: %v\n%s", err, d.YAML())
	}
	t.Setenv("KREGRESS_VM_CPUS_SWEEP", "2,4")
	if e, _, err := Load(writeConfig(t, "experiment: x\n"), nil); err != nil || !slices.Equal(e.SweepCounts(), []int{2, 4}) {
		t.Fatalf("from the environment: %v %v", err, e)
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	MustAddFlags(fs, Keys())
	if err := fs.Parse([]string{"--vm.cpus-sweep", "1,2,8"}); err != nil {
		t.Fatal(err)
	}
	if f, _, err := Load(writeConfig(t, "experiment: x\n"), fs); err != nil || !slices.Equal(f.SweepCounts(), []int{1, 2, 8}) {
		t.Fatalf("from the flag: %v %v", err, f)
	}
}

// The overcommit warning names the sweep's largest count.
func TestSweepOvercommit(t *testing.T) {
	c := &Config{VM: VM{CPUs: 2, CPUsSweep: []int{2, 16}}}
	if w := c.Overcommit(4); !strings.Contains(w, "vm.cpus_sweep's largest count 16") {
		t.Errorf("overcommit: %q", w)
	}
	c.VM.CPUsSweep = []int{1, 2}
	if w := c.Overcommit(4); w != "" {
		t.Errorf("a sweep that fits: %q", w)
	}
}
