// Package runlist is how the stored runs are listed: each run's status
// as this host can tell it (a "running" run whose process is gone, on
// another host, or detached), the rows of `results list`, and marking
// by hand a run interrupted whose process no one here can check. Listing
// changes nothing, so read-only commands use it.
package runlist

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

// Row is one line of results list (and of its --json).
type Row struct {
	ID         int64     `json:"id"`
	Experiment string    `json:"experiment"`
	Family     string    `json:"family"`
	Baseline   string    `json:"baseline"`
	Variants   []string  `json:"variants"`
	StartedAt  time.Time `json:"started_at"`
	Status     string    `json:"status"` // as State tells it: "running (process gone)", "running on HOST", ...
	OK         int       `json:"ok_cells"`
	Cells      int       `json:"cells"`
	Note       string    `json:"note,omitempty"`
}

// List is the runs of store that f selects, newest first, each with
// its cells counted and its state as v can tell it. Read-only: a run whose kregress died is still recorded
// running; State says so instead of marking it.
func List(ctx context.Context, store results.Store, f results.Filter, v Vantage) ([]Row, error) {
	runs, err := store.FindRuns(ctx, f)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, r := range runs {
		counts, err := store.CountResults(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		total := 0
		for _, n := range counts {
			total += n
		}
		status, note := State(r, v)
		rows = append(rows, Row{ID: r.ID, Experiment: r.Experiment, Family: r.Family, Baseline: r.Baseline, Variants: r.Variants,
			StartedAt: r.StartedAt, Status: status, OK: counts[results.StatusOK], Cells: total, Note: note})
	}
	return rows, nil
}

// State is how listings show a run's status and note. A "running" run
// says what v can tell about its process: live, gone (the next
// writing command here marks it), on another host (which nobody here
// can check: the user can mark it), or detached to a scheduler.
func State(r *results.Run, v Vantage) (status, note string) {
	if r.Status != results.RunRunning {
		return string(r.Status), lines.First(r.Error)
	}
	switch v.Liveness(r.Owner) {
	case results.GoneHere:
		return "running (process gone)", fmt.Sprintf("kregress pid %d ended without finishing it; the next writing command marks it interrupted; kregress run --resume %d finishes it", r.Owner.PID, r.ID)
	case results.OtherHost:
		return "running on " + cmp.Or(r.Owner.Hostname, "an unrecorded host"), fmt.Sprintf("pid %d since %s, cannot check from here; if it is gone: kregress results mark-interrupted %d",
			r.Owner.PID, r.StartedAt.Local().Format(time.DateTime), r.ID)
	case results.Detached:
		return "running (detached)", "its cells run on the scheduler; the last one finishes it"
	}
	return string(r.Status), fmt.Sprintf("kregress pid %d on this host", r.Owner.PID)
}

// Get reads run id and every cell's result: what results show and
// export print.
func Get(ctx context.Context, store results.Store, id int64) (*results.Run, []*results.Result, error) {
	run, err := store.GetRun(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	rs, err := store.Results(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return run, rs, nil
}

// MarkInterrupted marks running run id interrupted by hand from v's
// host at now, keeping its completed cells, with a note saying where it
// ran, and says on w how to finish it. A run that is not running, or
// whose process is alive on v's host, is refused (a usage error).
func MarkInterrupted(ctx context.Context, store results.Store, id int64, v Vantage, now time.Time, w io.Writer) error {
	run, err := store.GetRun(ctx, id)
	if err != nil {
		return err
	}
	if run.Status != results.RunRunning {
		return usage.Wrap(fmt.Errorf("run %d is %s, not running: nothing to mark", id, run.Status))
	}
	if v.Liveness(run.Owner) == results.LiveHere {
		return usage.Wrap(fmt.Errorf("run %d is running on this host (kregress pid %d): stop it with Ctrl-C or kill %d", id, run.Owner.PID, run.Owner.PID))
	}
	note := fmt.Sprintf("marked interrupted by hand on %s at %s; it was running on %s, kregress pid %d, since %s; completed cells are kept",
		v.Host, now.Format(time.DateTime), cmp.Or(run.Owner.Hostname, "an unrecorded host"), run.Owner.PID, run.StartedAt.Local().Format(time.DateTime))
	if err := store.MarkInterrupted(ctx, id, note); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "run %d marked interrupted; kregress run --resume %d (with the -c and flags it was started with) finishes it\n", id, id)
	return err
}

// ParseStatus reads a --status filter: "" (any run) or a run status.
func ParseStatus(s string) (results.RunStatus, error) {
	if st := results.RunStatus(s); st == "" || st.Valid() {
		return st, nil
	}
	return "", usage.Wrap(fmt.Errorf("--status %q: a run is running, complete, interrupted or failed", s))
}
