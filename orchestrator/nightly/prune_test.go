package nightly

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/runlist"
	"github.com/kregress/kregress/results/store"
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
	did := func(dryRun bool, live results.Liveness) map[int64]PruneAction {
		got := map[int64]PruneAction{}
		liveness := func(o results.RunOwner) results.Liveness {
			if o.PID != int64(os.Getpid()) {
				t.Fatalf("asked about %+v, not the running run's owner", o)
			}
			return live
		}
		if err := Prune(ctx, s, runs, dir, false, dryRun, liveness, func(r *results.Run, a PruneAction) { got[r.ID] = a }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	// A running run whose process may be alive is never deleted, nor
	// listed for deletion.
	for _, live := range []results.Liveness{results.LiveHere, results.OtherHost, results.Detached} {
		if got := did(true, live); got[running.ID] != PruneSkipped || got[done.ID] != PruneWouldDelete || got[base.ID] != PruneKept {
			t.Fatalf("dry run, running run's liveness %d: %v", live, got)
		}
	}
	// One whose process is gone is what a real prune marks interrupted
	// and deletes: a dry run, which marks nothing, lists it.
	if got := did(true, results.GoneHere); got[running.ID] != PruneWouldDelete {
		t.Fatalf("dry run, process gone: %v", got)
	}
	if _, err := s.GetRun(ctx, done.ID); err != nil {
		t.Fatalf("a dry run deleted run %d: %v", done.ID, err)
	}
	if got := did(false, results.LiveHere); got[running.ID] != PruneSkipped || got[done.ID] != PruneDeleted || got[base.ID] != PruneKept {
		t.Fatalf("prune: %v", got)
	}
	if _, err := s.GetRun(ctx, done.ID); err == nil {
		t.Fatalf("run %d was not deleted", done.ID)
	}
}

// A PruneRequest opens the store read-only on a dry run, selects what
// its flags and arguments say and prints a line per run.
func TestPruneRequest(t *testing.T) {
	ctx := t.Context()
	s := storetest.SQLite(t)
	old := storetest.AddRun(t, s, results.RunComplete, []string{"a"})
	running := storetest.AddRun(t, s, results.RunRunning, []string{"a"})
	storetest.AddRun(t, s, results.RunComplete, []string{"a"})
	if (PruneRequest{DryRun: true}).Access() != store.ReadOnly || (PruneRequest{}).Access() != store.Changing {
		t.Fatal("a dry run must open the store read-only, a prune for changing")
	}
	if _, err := (PruneRequest{Keep: 1}).Selection([]string{"3"}, time.Now()); !usage.Is(err) {
		t.Fatalf("--keep with run ids: %v, want a usage error", err)
	}
	// All but the newest, newest first: the running run, skipped (seen
	// from another host, nobody can tell its process is gone), and the
	// oldest.
	q := PruneRequest{Keep: 1, DryRun: true}
	sel, err := q.Selection(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	gone := runlist.Vantage{Host: "elsewhere", Alive: func(int) bool { return false }}
	var out strings.Builder
	if err := q.Run(ctx, s, sel, t.TempDir(), gone, &out); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("skip run %d: still running", running.ID)
	if lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], want) || !strings.HasPrefix(lines[1], fmt.Sprintf("would delete run %d (e, ", old.ID)) {
		t.Fatalf("dry run said:\n%s", out.String())
	}
	if _, err := s.GetRun(ctx, old.ID); err != nil {
		t.Fatalf("a dry run deleted run %d: %v", old.ID, err)
	}
	// The same prune for real deletes the oldest.
	out.Reset()
	if err := (PruneRequest{Keep: 1}).Run(ctx, s, sel, t.TempDir(), gone, &out); err != nil || !strings.Contains(out.String(), fmt.Sprintf("deleted run %d (e, ", old.ID)) {
		t.Fatalf("prune said %q, %v", out.String(), err)
	}
	if _, err := s.GetRun(ctx, old.ID); err == nil {
		t.Fatalf("run %d was not deleted", old.ID)
	}
}
