package nightly

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// Prune skips a running run, keeps a nightly baseline unless forced,
// deletes nothing on a dry run, and otherwise deletes run and artifacts.
func TestPrune(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s, err := store.OpenSQLite(filepath.Join(dir, "kregress.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := func(status results.RunStatus) *results.Run {
		r := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, Status: results.RunRunning, Config: "x: 1", StartedAt: time.Now()}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if status != results.RunRunning {
			if err := s.FinishRun(ctx, r.ID, status, ""); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	running, done, base := add(results.RunRunning), add(results.RunComplete), add(results.RunComplete)
	if err := s.AddMark(ctx, &results.Mark{RunID: base.ID, Kind: results.MarkAccepted, Who: "t", Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	runs, err := PruneCandidates(ctx, s, PruneSelection{IDs: []int64{running.ID, done.ID, base.ID}})
	if err != nil || len(runs) != 3 {
		t.Fatalf("candidates: %d, %v", len(runs), err)
	}
	if runs, err := PruneCandidates(ctx, s, PruneSelection{Keep: 1}); err != nil || len(runs) != 2 {
		t.Fatalf("all but the newest: %d, %v", len(runs), err)
	}
	if runs, err := PruneCandidates(ctx, s, PruneSelection{Before: time.Now().Add(-time.Hour)}); err != nil || len(runs) != 0 {
		t.Fatalf("older than an hour: %d, %v", len(runs), err)
	}
	did := func(dryRun bool) map[int64]PruneAction {
		got := map[int64]PruneAction{}
		if err := Prune(ctx, s, runs, dir, false, dryRun, func(r *results.Run, a PruneAction) { got[r.ID] = a }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := did(true); got[running.ID] != PruneSkipped || got[done.ID] != PruneWouldDelete || got[base.ID] != PruneKept {
		t.Fatalf("dry run: %v", got)
	}
	if _, err := s.GetRun(ctx, done.ID); err != nil {
		t.Fatalf("a dry run deleted run %d: %v", done.ID, err)
	}
	if got := did(false); got[done.ID] != PruneDeleted || got[base.ID] != PruneKept {
		t.Fatalf("prune: %v", got)
	}
	if _, err := s.GetRun(ctx, done.ID); err == nil {
		t.Fatalf("run %d was not deleted", done.ID)
	}
}
