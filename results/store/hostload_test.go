package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kregress/kregress/results"
)

// A cell's host load is stored and read back; a cell stored without it
// (every run before it was recorded) reads back as unknown, not loaded.
func TestHostLoadRoundTrip(t *testing.T) {
	s, err := OpenSQLite(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	run := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), Status: results.RunRunning}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	steal := 12.5
	loaded := &results.Result{RunID: run.ID, Variant: "a", Repetition: 1, Seq: 1, Status: results.StatusOK,
		Provenance: results.Provenance{HostLoad: &results.HostLoad{Load1Start: 3, Load1End: 2, Cores: 2, StealPct: &steal, OtherQEMU: 1, GuestCPUs: 2}}}
	old := &results.Result{RunID: run.ID, Variant: "a", Repetition: 2, Seq: 2, Status: results.StatusOK, Provenance: results.Provenance{HostLoad1: 0.5}}
	for _, r := range []*results.Result{loaded, old} {
		if err := s.AddResult(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := s.Results(ctx, run.ID)
	if err != nil || len(rs) != 2 {
		t.Fatalf("%d results, %v", len(rs), err)
	}
	h := rs[0].Provenance.HostLoad
	if h == nil || h.Load1Start != 3 || h.StealPct == nil || *h.StealPct != 12.5 || h.OtherQEMU != 1 {
		t.Fatalf("host load read back as %+v", h)
	}
	if ok, why := h.Loaded(); !ok || why != "load 3.0 on 2 cores, steal 12%, 1 other qemu-system" {
		t.Fatalf("loaded %v %q", ok, why)
	}
	if rs[1].Provenance.HostLoad != nil {
		t.Fatalf("a cell stored without host load read back with %+v", rs[1].Provenance.HostLoad)
	}
	if ok, _ := rs[1].Provenance.HostLoad.Loaded(); ok {
		t.Fatal("unknown load called loaded")
	}
}
