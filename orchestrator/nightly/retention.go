package nightly

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kregress/kregress/results"
)

// Baselines lists the runs of experiment that a later night may still be
// compared with: every complete run marked good or accepted that no newer
// good or accepted run measured alike supersedes (lastGood picks the
// newest alike one, so an older alike one is never chosen again).
func Baselines(ctx context.Context, store results.Store, experiment string) (map[int64]bool, error) {
	runs, err := store.FindRuns(ctx, results.Filter{Experiment: experiment, Status: results.RunComplete})
	if err != nil {
		return nil, err
	}
	keep := map[int64]bool{}
	var kept [][]*results.Result // newest first, as FindRuns returns them
	for _, run := range runs {
		marks, err := store.Marks(ctx, run.ID)
		if err != nil {
			return nil, err
		}
		if judgement(marks) == "" {
			continue
		}
		rs, err := store.Results(ctx, run.ID)
		if err != nil {
			return nil, err
		}
		superseded := false
		for _, newer := range kept {
			if alike(rs, newer) {
				superseded = true
				break
			}
		}
		if !superseded {
			keep[run.ID] = true
			kept = append(kept, rs)
		}
	}
	return keep, nil
}

// PruneArtifacts deletes the artifact directories (artifactsDir/run-N:
// consoles, agent documents, traces) of experiment's runs started before
// cutoff, except its baselines and runs still going. The runs stay in the
// store: the history of nights is what change-point detection reads.
func PruneArtifacts(ctx context.Context, store results.Store, experiment, artifactsDir string, cutoff time.Time) (pruned []int64, err error) {
	base, err := Baselines(ctx, store, experiment)
	if err != nil {
		return nil, err
	}
	runs, err := store.FindRuns(ctx, results.Filter{Experiment: experiment, Before: cutoff})
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		if base[run.ID] || run.Status == results.RunRunning {
			continue
		}
		dir := filepath.Join(artifactsDir, fmt.Sprintf("run-%d", run.ID))
		if _, err := os.Stat(dir); err != nil {
			continue // pruned before, or never had artifacts
		}
		if err := os.RemoveAll(dir); err != nil {
			return pruned, fmt.Errorf("pruning run %d's artifacts: %w", run.ID, err)
		}
		pruned = append(pruned, run.ID)
	}
	return pruned, nil
}
