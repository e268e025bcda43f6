package nightly

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/runlist"
)

// Acceptance is one `baseline accept`: run RunID made its experiment's
// baseline by Who, for Reason.
type Acceptance struct {
	RunID       int64
	Who, Reason string
}

// NewAcceptance checks `baseline accept RUN --reason TEXT` before the
// store is opened: a reason is required (it is kept with the mark for
// whoever wonders later why a regression became the baseline) and RUN
// is a run id. Who is $USER ("unknown" when unset).
func NewAcceptance(run, reason string) (Acceptance, error) {
	if strings.TrimSpace(reason) == "" {
		return Acceptance{}, usage.Wrap(errors.New("--reason is required: say why this run is the new baseline"))
	}
	ids, err := RunIDs([]string{run})
	if err != nil {
		return Acceptance{}, err
	}
	return Acceptance{RunID: ids[0], Who: cmp.Or(os.Getenv("USER"), "unknown"), Reason: reason}, nil
}

// RunIDs reads the RUN arguments of `baseline accept` and `baseline
// list`; one that is not a positive number is a usage error
// (runlist.ParseID: "0" read as run 0 and "12abc" as run 12).
func RunIDs(args []string) ([]int64, error) {
	var ids []int64
	for _, a := range args {
		id, err := runlist.ParseID(a)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// Record makes a's run the baseline of its experiment's later nights
// (Accept) and says so on w.
func (a Acceptance) Record(ctx context.Context, store results.Store, w io.Writer) error {
	if err := Accept(ctx, store, a.RunID, a.Who, a.Reason); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "run %d accepted as a baseline by %s: %s\n", a.RunID, a.Who, a.Reason)
	return err
}

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

// recentMarked is how many of the latest runs ListMarks reads when it is
// given none.
const recentMarked = 20

// MarksOf is `baseline list [RUN...]`: the marks of the runs args name
// (RunIDs), or of the latest runs without any (ListMarks).
func MarksOf(ctx context.Context, store results.Store, args []string) ([]nightreport.MarkRow, error) {
	ids, err := RunIDs(args)
	if err != nil {
		return nil, err
	}
	return ListMarks(ctx, store, ids)
}

// ListMarks is the marks (good, accepted, look) of runs ids, in their order;
// with no ids, of the latest runs. Never nil, so its JSON is a list.
func ListMarks(ctx context.Context, store results.Store, ids []int64) ([]nightreport.MarkRow, error) {
	if len(ids) == 0 {
		runs, err := store.ListRuns(ctx, recentMarked)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			ids = append(ids, r.ID)
		}
	}
	rows := []nightreport.MarkRow{}
	for _, id := range ids {
		marks, err := store.Marks(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("run %d: marks: %w", id, err)
		}
		for _, m := range marks {
			rows = append(rows, nightreport.MarkRow{RunID: id, Kind: string(m.Kind), At: m.At, Who: m.Who, Reason: m.Reason})
		}
	}
	return rows, nil
}
