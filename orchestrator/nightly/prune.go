package nightly

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kregress/kregress/results"
)

// PruneSelection is which runs `results prune` deletes: exactly one of
// the run ids, all but the newest Keep, or those started before Before.
type PruneSelection struct {
	IDs    []int64
	Keep   int
	Before time.Time
}

// PruneAction is what Prune did with one selected run.
type PruneAction int

const (
	// PruneSkipped: the run is still running.
	PruneSkipped PruneAction = iota
	// PruneKept: the run is a baseline a later night compares with.
	PruneKept
	// PruneWouldDelete: a dry run would have deleted it.
	PruneWouldDelete
	// PruneDeleted: the run and its artifacts are gone.
	PruneDeleted
)

// PruneCandidates is the runs sel selects, newest first.
func PruneCandidates(ctx context.Context, store results.Store, sel PruneSelection) ([]*results.Run, error) {
	switch {
	case len(sel.IDs) > 0:
		var runs []*results.Run
		for _, id := range sel.IDs {
			r, err := store.GetRun(ctx, id)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
		}
		return runs, nil
	case sel.Keep > 0:
		all, err := store.FindRuns(ctx, results.Filter{})
		if err != nil || len(all) <= sel.Keep {
			return nil, err
		}
		return all[sel.Keep:], nil
	}
	return store.FindRuns(ctx, results.Filter{Before: sel.Before})
}

// Prune deletes runs from store, with their artifact directories under
// artifactsDir, except a run still running and, unless force, the
// baselines a later night of its experiment compares with (Baselines);
// with dryRun it deletes nothing. It tells done what it did with each
// run as it goes, so a failure part way has said what was deleted.
//
// liveness says what this host can tell about a running run's process.
// A real prune opens the store marking the runs whose process is gone
// interrupted, so they are prunable; a dry run opens it read-only and
// marks nothing, so it counts such a run (GoneHere) as the real prune
// would. A run whose process may be alive is never deleted.
func Prune(ctx context.Context, store results.Store, runs []*results.Run, artifactsDir string, force, dryRun bool, liveness func(results.RunOwner) results.Liveness, done func(*results.Run, PruneAction)) error {
	baselines := map[string]map[int64]bool{}
	for _, r := range runs {
		if r.Status == results.RunRunning && !(dryRun && liveness(r.Owner) == results.GoneHere) {
			done(r, PruneSkipped)
			continue
		}
		if baselines[r.Experiment] == nil {
			var err error
			if baselines[r.Experiment], err = Baselines(ctx, store, r.Experiment); err != nil {
				return err
			}
		}
		switch {
		case baselines[r.Experiment][r.ID] && !force:
			done(r, PruneKept)
		case dryRun:
			done(r, PruneWouldDelete)
		default:
			if err := store.DeleteRun(ctx, r.ID); err != nil {
				return err
			}
			os.RemoveAll(filepath.Join(artifactsDir, fmt.Sprintf("run-%d", r.ID)))
			done(r, PruneDeleted)
		}
	}
	return nil
}

// PruneArtifactsOlderThan applies nightly --keep-artifacts to experiment
// e's runs after its night: the artifact directories of its runs
// started longer than keep ago are deleted, except the baselines' (the
// runs stay in the store); 0 keeps all. It reports what it did; an
// experiment that does not load was reported by the night already.
func (n *Night) PruneArtifactsOlderThan(ctx context.Context, e string, keep time.Duration) {
	if keep <= 0 {
		return
	}
	cfg, err := n.Load(e)
	if err != nil {
		return
	}
	pruned, err := PruneArtifacts(ctx, n.Store, cfg.Experiment, cfg.ArtifactsDir(), time.Now().Add(-keep))
	if err != nil {
		n.report("retention: %v", err)
	} else if len(pruned) > 0 {
		n.report("retention: deleted the artifacts of %d run(s) of %s older than %s (baselines kept; the runs stay in the store): %v", len(pruned), cfg.Experiment, keep, pruned)
	}
}
