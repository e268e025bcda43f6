package compare

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kregress/kregress/results"
)

// Mismatch is one way two result sets were not measured alike.
type Mismatch struct {
	Field string
	A, B  []string // the distinct values on each side
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s: %s vs %s", m.Field, strings.Join(m.A, ", "), strings.Join(m.B, ", "))
}

// setupFields are what must be equal for two sets' numbers to mean the
// same thing: the machine, the guest's shape, the kernel's configuration
// and the workload. (The kernel's source and patches are what a diff is
// there to compare, so they are not among them.)
var setupFields = []struct {
	name string
	get  func(p results.Provenance) string
}{
	{"accelerator", func(p results.Provenance) string { return p.Accel }},
	{"guest clock", func(p results.Provenance) string { return cmp.Or(p.Clock, "host") }},
	// Runs stored before the machine was recorded all ran on this one.
	{"machine and firmware", func(p results.Provenance) string { return cmp.Or(p.Machine, "q35, SeaBIOS, direct kernel boot") }},
	{"vCPUs", func(p results.Provenance) string { return strconv.Itoa(p.VCPUs) }},
	{"max vCPUs", func(p results.Provenance) string { return strconv.Itoa(p.MaxVCPUs) }},
	{"guest CPUs online", func(p results.Provenance) string { return strconv.Itoa(p.CPUsOnline) }},
	{"guest CPUs possible", func(p results.Provenance) string { return strconv.Itoa(p.CPUsPossible) }},
	{"memory (MB)", func(p results.Provenance) string { return strconv.Itoa(p.MemoryMB) }},
	{"kernel config (sha256)", func(p results.Provenance) string { return short(p.ConfigSHA256) }},
	{"preemption model", func(p results.Provenance) string { return p.Preemption }},
	{"kernel command line", func(p results.Provenance) string { return p.Cmdline }},
	{"workload", func(p results.Provenance) string { return p.Workload }},
	{"workload arguments", func(p results.Provenance) string { return p.WorkloadArgs }},
	{"QEMU version", func(p results.Provenance) string { return p.QEMUVersion }},
	{"host CPU", func(p results.Provenance) string { return p.HostCPU }},
	{"host cores", func(p results.Provenance) string { return strconv.Itoa(p.HostCores) }},
	{"cell placement", placement},
}

// placement says how a cell shared its host: guests side by side (pinned
// to their own cores) contend for caches and memory bandwidth, so their
// throughput is not that of one guest at a time (docs/design-notes.md,
// "Parallel cells and Slurm"); a scheduler's task is placed as its
// executor registered (results.RegisterPlacement).
func placement(p results.Provenance) string {
	if s := p.ScheduledPlacement(); s != "" {
		return s
	}
	if len(p.HostCPUs) > 0 {
		return "side by side, pinned to own cores"
	}
	return "one guest at a time"
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// Mismatches lists how sets a and b were measured differently. Only
// cells that booted count (a cell that failed before booting recorded no
// guest), and a field neither side recorded is skipped (older results).
func Mismatches(a, b []*results.Result) []Mismatch {
	var out []Mismatch
	for _, f := range setupFields {
		va, vb := values(a, f.get), values(b, f.get)
		if len(va) == 0 || len(vb) == 0 || strings.Join(va, "\x00") == strings.Join(vb, "\x00") {
			continue
		}
		out = append(out, Mismatch{Field: f.name, A: va, B: vb})
	}
	return out
}

func values(rs []*results.Result, get func(results.Provenance) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		if !r.Status.OK() {
			continue
		}
		v := get(r.Provenance)
		if v == "" || v == "0" || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
