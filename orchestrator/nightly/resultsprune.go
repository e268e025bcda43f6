package nightly

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/runlist"
	"github.com/kregress/kregress/results/store"
)

// PruneRequest is one `results prune`, its flags bound to its fields:
// what it selects besides run ids (Keep, OlderThan), whether it only
// says what it would delete (DryRun) and whether baselines go too
// (Force).
type PruneRequest struct {
	Keep          int
	OlderThan     time.Duration
	DryRun, Force bool
}

// Selection is the runs the request and the RUN arguments args select
// at now (NewPruneSelection), checked before the store is opened.
func (q PruneRequest) Selection(args []string, now time.Time) (PruneSelection, error) {
	return NewPruneSelection(args, q.Keep, q.OlderThan, now)
}

// Access is how the store is opened for the request. A dry run writes
// nothing: it opens the store read-only, so no stale run is marked
// interrupted (Prune counts one as prunable).
func (q PruneRequest) Access() store.Access {
	if q.DryRun {
		return store.ReadOnly
	}
	return store.Changing
}

// Run prunes the runs sel selects from s (PruneCandidates, Prune), with
// their artifacts under artifactsDir, judging a running run's process
// from v, and says on w what it did with each run as it goes.
func (q PruneRequest) Run(ctx context.Context, s results.Store, sel PruneSelection, artifactsDir string, v runlist.Vantage, w io.Writer) error {
	victims, err := PruneCandidates(ctx, s, sel)
	if err != nil {
		return err
	}
	return Prune(ctx, s, victims, artifactsDir, q.Force, q.DryRun, v.Liveness, func(r *results.Run, did PruneAction) {
		fmt.Fprintln(w, did.Line(r))
	})
}
