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
