package compare

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
)

func TestHostsNote(t *testing.T) {
	cell := func(variant, host, cpu string) *results.Result {
		return &results.Result{Variant: variant, Status: results.StatusOK, Provenance: results.Provenance{Host: host, HostCPU: cpu}}
	}
	one := []*results.Result{cell("a", "n1", "X"), cell("b", "n1", "X")}
	if HostsNote(one) != "" {
		t.Fatalf("one host noted: %q", HostsNote(one))
	}
	two := append(one, cell("a", "n2", "Y"), cell("b", "n2", "Y"), cell("b", "n2", "Y"))
	note := HostsNote(two)
	for _, want := range []string{"2 hosts", "n1 (a 1, b 1)", "n2 (a 1, b 2)", "CPU models differ (X | Y)"} {
		if !strings.Contains(note, want) {
			t.Fatalf("note %q lacks %q", note, want)
		}
	}
	blocks := ByHost(two)
	if len(blocks) != 2 || len(blocks[0]) != 2 || len(blocks[1]) != 3 || blocks[1][0].Provenance.Host != "n2" {
		t.Fatalf("blocks %v", blocks)
	}
}

// TestHostMismatchesWithinARun: a variant whose cells ran on hosts with
// other CPU models or core counts is flagged as two such runs are
// (Mismatches); hosts alike, a variant on one host, or a cell that did
// not boot on the odd host are not.
func TestHostMismatchesWithinARun(t *testing.T) {
	cell := func(variant, host, cpu string, cores int, st results.Status) *results.Result {
		return &results.Result{Variant: variant, Status: st, Provenance: results.Provenance{Host: host, HostCPU: cpu, HostCores: cores}}
	}
	ok := results.StatusOK
	alike := []*results.Result{cell("a", "n1", "X", 2, ok), cell("a", "n2", "X", 2, ok), cell("b", "n1", "X", 2, ok), cell("b", "n2", "X", 2, ok)}
	if m := HostMismatches(alike); len(m) != 0 {
		t.Fatalf("hosts alike flagged: %q", m)
	}
	if n := HostsNote(alike); strings.Contains(n, "WARNING") {
		t.Fatalf("hosts alike warned of: %q", n)
	}
	unlike := []*results.Result{cell("a", "n1", "X", 2, ok), cell("a", "n2", "X", 4, ok), cell("a", "n3", "Y", 2, ok),
		cell("b", "n1", "X", 2, ok), cell("b", "n2", "X", 4, results.StatusBootFailed)}
	got := strings.Join(HostMismatches(unlike), "\n")
	want := "a on n2 vs n1: host cores: 4 vs 2\na on n3 vs n1: host CPU: Y vs X"
	if got != want {
		t.Fatalf("mismatches:\n%s\nwant:\n%s", got, want)
	}
	if n := HostsNote(unlike); !strings.Contains(n, "WARNING, cells of one variant were not measured alike") || !strings.Contains(n, "a on n2 vs n1: host cores: 4 vs 2") {
		t.Fatalf("note %q does not flag variant a", n)
	}
}
