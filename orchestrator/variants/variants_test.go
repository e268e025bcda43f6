package variants

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/patches"
)

// A gate test that needs more CPUs than the guest has is refused up front
// (it would only skip), naming the experiment that has them; that
// experiment resolves.
func TestGateTestNeedsMoreCPUs(t *testing.T) {
	cfg, _, err := config.Load("cpuset-attach", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.VM.CPUs = 2
	cfg.Selftests.Binaries = []string{"test_cpuset", "test_cpuset_prs.sh"}
	_, err = Resolve(cfg)
	if err == nil || !strings.Contains(err.Error(), "test_cpuset_prs.sh needs at least 8 vCPUs and vm.cpus is 2") || !strings.Contains(err.Error(), "cpuset-partitions") {
		t.Fatalf("err = %v", err)
	}
	cfg.Selftests.Repetitions = 0 // the gate is off: nothing to refuse
	if _, err := Resolve(cfg); err != nil {
		t.Fatalf("gate off: %v", err)
	}
	cfg, _, err = config.Load("cpuset-partitions", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(cfg); err != nil {
		t.Fatalf("cpuset-partitions: %v", err)
	}
	if strings.Join(cfg.Selftests.Binaries, " ") != "test_cpuset_prs.sh" || cfg.VM.CPUs != 8 {
		t.Fatalf("cpuset-partitions: binaries %v, %d vCPUs", cfg.Selftests.Binaries, cfg.VM.CPUs)
	}
}

// Variant finds a measured variant by name, and nil for one not measured.
func TestSelectionVariant(t *testing.T) {
	a, b := &patches.Variant{Name: "a"}, &patches.Variant{Name: "b"}
	sel := &Selection{Variants: []*patches.Variant{a, b}}
	if sel.Variant("b") != b || sel.Variant("a") != a {
		t.Error("a measured variant not found by its name")
	}
	if sel.Variant("c") != nil {
		t.Error("a variant not measured was found")
	}
}
