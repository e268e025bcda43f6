package nightly

import (
	"testing"
	"time"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// Prune skips a running run, keeps a nightly baseline unless forced,
// deletes nothing on a dry run, and otherwise deletes run and artifacts.
func TestPrune(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s := storetest.SQLite(t)
	running := storetest.AddRun(t, s, results.RunRunning, []string{"a"})
	done := storetest.AddRun(t, s, results.RunComplete, []string{"a"})
	base := storetest.AddRun(t, s, results.RunComplete, []string{"a"})
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
