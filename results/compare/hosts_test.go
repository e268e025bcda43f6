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
