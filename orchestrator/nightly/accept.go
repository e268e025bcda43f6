package nightly

import (
	"context"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

// Accept makes run id the baseline of its experiment's later nights
// (`baseline accept`), kept with who and why. A run that cannot serve
// as a baseline is refused (acceptable).
func Accept(ctx context.Context, store results.Store, id int64, who, reason string) error {
	if err := acceptable(ctx, store, id); err != nil {
		return err
	}
	return store.AddMark(ctx, &results.Mark{RunID: id, Kind: results.MarkAccepted, Who: who, Reason: reason})
}

// acceptable refuses (a usage error) a run that cannot serve as a
// baseline: one that did not complete (interrupted, still running) or a
// variant of it without a single ok cell, whose nights would then be
// compared with nothing.
func acceptable(ctx context.Context, store results.Store, id int64) error {
	run, err := store.GetRun(ctx, id)
	if err != nil {
		return err
	}
	if run.Status != results.RunComplete {
		return usage.Errorf("run %d is %s, not complete: a baseline must be a whole run (finish it with run --resume %d)", id, run.Status, id)
	}
	rs, err := store.Results(ctx, id)
	if err != nil {
		return err
	}
	ok := map[string]int{}
	for _, r := range rs {
		if r.Status.OK() {
			ok[r.Variant]++
		}
	}
	for _, v := range run.Variants {
		if ok[v] == 0 {
			return usage.Errorf("run %d has no ok cell of variant %s: nothing of it could serve as a baseline", id, v)
		}
	}
	return nil
}
