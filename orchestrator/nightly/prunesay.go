package nightly

import (
	"cmp"
	"fmt"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/runlist"
)

// NewPruneSelection is the selection `results prune` was given: exactly
// one of keep > 0, olderThan > 0 (runs started before now-olderThan) or
// run ids (args, read by runlist.ParseID); none or several is a usage error,
// said before any id is read.
func NewPruneSelection(args []string, keep int, olderThan time.Duration, now time.Time) (PruneSelection, error) {
	selectors := 0
	for _, set := range []bool{keep > 0, olderThan > 0, len(args) > 0} {
		if set {
			selectors++
		}
	}
	if selectors != 1 {
		return PruneSelection{}, usage.Wrap(fmt.Errorf("say what to prune: exactly one of --keep N, --older-than DURATION, or run ids"))
	}
	sel := PruneSelection{Keep: keep, Before: now.Add(-olderThan)}
	for _, a := range args {
		id, err := runlist.ParseID(a)
		if err != nil {
			return PruneSelection{}, err
		}
		sel.IDs = append(sel.IDs, id)
	}
	return sel, nil
}

// Line says what Prune did with run r, as `results prune` prints it.
func (a PruneAction) Line(r *results.Run) string {
	started := r.StartedAt.Local().Format(time.DateTime)
	switch a {
	case PruneSkipped:
		if r.Owner.PID == results.DetachedPID {
			return fmt.Sprintf("skip run %d: still running (detached: its cells run on the scheduler)", r.ID)
		}
		return fmt.Sprintf("skip run %d: still running (kregress pid %d on %s)", r.ID, r.Owner.PID, cmp.Or(r.Owner.Hostname, "an unrecorded host"))
	case PruneKept:
		return fmt.Sprintf("keep run %d: the baseline a later nightly of %s compares with (--force deletes it anyway)", r.ID, r.Experiment)
	case PruneWouldDelete:
		return fmt.Sprintf("would delete run %d (%s, %s)", r.ID, r.Experiment, started)
	case PruneDeleted:
		return fmt.Sprintf("deleted run %d (%s, %s)", r.ID, r.Experiment, started)
	}
	return fmt.Sprintf("run %d: unknown prune action %d", r.ID, int(a))
}
