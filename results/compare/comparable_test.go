package compare

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
)

func TestMismatches(t *testing.T) {
	prov := results.Provenance{Accel: "tcg", VCPUs: 2, CPUsOnline: 2, MemoryMB: 1024, ConfigSHA256: "aaaaaaaaaaaaaaaa", Workload: "rstat", WorkloadArgs: "--duration 10s", QEMUVersion: "7.2.15", HostCPU: "EPYC"}
	mk := func(n int, edit func(*results.Provenance)) []*results.Result {
		var out []*results.Result
		for i := 0; i < n; i++ {
			p := prov
			if edit != nil {
				edit(&p)
			}
			out = append(out, &results.Result{Status: results.StatusOK, Provenance: p})
		}
		// A cell that never booted says nothing about the setup.
		return append(out, &results.Result{Status: results.StatusInfra})
	}
	if m := Mismatches(mk(3, nil), mk(3, nil)); len(m) != 0 {
		t.Fatalf("alike sets differ: %v", m)
	}
	m := Mismatches(mk(3, nil), mk(3, func(p *results.Provenance) { p.Accel, p.VCPUs, p.ConfigSHA256 = "kvm", 8, "bbbbbbbbbbbbbbbbbb" }))
	var got []string
	for _, x := range m {
		got = append(got, x.String())
	}
	want := "accelerator: tcg vs kvm; vCPUs: 2 vs 8; kernel config (sha256): aaaaaaaaaaaa vs bbbbbbbbbbbb"
	if strings.Join(got, "; ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "; "), want)
	}
	// Older results without a field are not called different.
	if m := Mismatches(mk(2, func(p *results.Provenance) { p.QEMUVersion = "" }), mk(2, nil)); len(m) != 0 {
		t.Fatalf("a missing field counted: %v", m)
	}
}

// A registered scheduler's cells are told apart from local ones by the
// placement the registry gave its kind, found from the provenance's
// executor, and from each other's kinds.
func TestPlacementOfAScheduledCell(t *testing.T) {
	results.RegisterPlacement("test-scheduler", "a test task")
	set := func(executor string, cpus []int) []*results.Result {
		return []*results.Result{{Status: results.StatusOK, Provenance: results.Provenance{Executor: executor, HostCPUs: cpus}}}
	}
	for _, tc := range []struct {
		a, b []*results.Result
		want string
	}{
		{set("test-scheduler job 4_1 attempt 1", nil), set("local", nil), "cell placement: a test task vs one guest at a time"},
		{set("test-scheduler job 4_1 attempt 1 on node3", []int{0}), set("local", []int{1}), "cell placement: a test task vs side by side, pinned to own cores"},
		{set("unregistered job 1", nil), set("local", nil), ""},
	} {
		var got []string
		for _, m := range Mismatches(tc.a, tc.b) {
			got = append(got, m.String())
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("%s vs %s: got %q, want %q", tc.a[0].Provenance.Executor, tc.b[0].Provenance.Executor, got, tc.want)
		}
	}
}
