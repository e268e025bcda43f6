package bisect

// A bisect as it ended, and as `kregress bisect list` and `bisect show`
// read it back from the store: what the commands render (results/format)
// and the exit code they end with.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/verdict"
)

// Ended is a bisect as it ended or stopped: its id (0: it was never
// stored), its search, its state (nil: it stopped before the endpoints
// were measured) and why it stopped (nil: it ended).
type Ended struct {
	ID     int64
	Spec   *Spec
	Result *Result
	Err    error
}

// Summary is o as its text report and its listing print it.
func (o *Ended) Summary() *bisectreport.Summary {
	return Summarize(o.ID, o.Spec, o.Result, o.Err)
}

// Report is o's culprit report (BuildReport: it reads the culprit's
// commit from the git tree).
func (o *Ended) Report(ctx context.Context, store results.Store) (*bisectreport.Report, error) {
	return BuildReport(ctx, store, o.ID, o.Spec, o.Result, o.Err)
}

// Verdict is how o ended as `kregress bisect`'s verdict (its exit code):
// Culprit, NotReproduced or Inconclusive; when it was interrupted or
// failed, Stopped with an error that says how to resume it (a usage
// error for a metric the workload never reported).
func (o *Ended) Verdict(interrupted bool) (verdict.Bisect, error) {
	var ume *UnknownMetricError
	switch {
	case errors.As(o.Err, &ume):
		return verdict.Stopped, usage.Wrap(o.Err)
	case errors.Is(o.Err, ErrNotReproduced):
		return verdict.NotReproduced, nil
	case interrupted:
		return verdict.Stopped, fmt.Errorf("bisect %d interrupted; its steps are stored: kregress bisect --resume %d", o.ID, o.ID)
	case o.Err != nil:
		return verdict.Stopped, fmt.Errorf("bisect %d: %w (steps so far are stored: kregress bisect --resume %d)", o.ID, o.Err, o.ID)
	case o.Result.Culprit == "":
		return verdict.Inconclusive, nil
	}
	return verdict.Culprit, nil
}

// Doc is a stored bisect as bisect list --json and bisect show --json
// print it (show adds the culprit report).
type Doc struct {
	ID         int64                `json:"id"`
	Status     string               `json:"status"`
	StartedAt  time.Time            `json:"started_at"`
	FinishedAt *time.Time           `json:"finished_at,omitempty"`
	Spec       *Spec                `json:"spec"`
	Result     *Result              `json:"result"`
	Report     *bisectreport.Report `json:"report,omitempty"`
	// ReportError says why show could not build the report (the git
	// tree it reads the culprit from is gone, say).
	ReportError string `json:"report_error,omitempty"`
}

// NewDoc is b, read as spec and res, without its report.
func NewDoc(b *results.Bisect, spec *Spec, res *Result) Doc {
	d := Doc{ID: b.ID, Status: string(b.Status), StartedAt: b.StartedAt, Spec: spec, Result: res}
	if !b.FinishedAt.IsZero() {
		d.FinishedAt = &b.FinishedAt
	}
	return d
}

// Docs are the stored bisects bs as bisect list --json prints them.
func Docs(bs []*results.Bisect) ([]Doc, error) {
	list := []Doc{}
	for _, b := range bs {
		spec, res, err := Load(b)
		if err != nil {
			return nil, fmt.Errorf("bisect %d: %w", b.ID, err)
		}
		list = append(list, NewDoc(b, spec, res))
	}
	return list, nil
}

// SummarizeStored is stored bisect b as its line in bisect list
// summarizes it (results/format.BisectLine).
func SummarizeStored(b *results.Bisect) (*bisectreport.Summary, error) {
	spec, res, err := Load(b)
	if err != nil {
		return nil, err
	}
	return Summarize(b.ID, spec, res, nil), nil
}

// Stored is a bisect read back from the store for `bisect show`: its
// Ended's Err is ErrNotReproduced for a finished bisect whose
// endpoints did not differ, nil otherwise (why a run stopped is not
// stored).
type Stored struct {
	Ended
	Bisect *results.Bisect
}

// ParseID reads bisect show's ID argument; what is not a positive
// number (no bisect has id 0) is a usage error.
func ParseID(arg string) (int64, error) {
	return usage.PositiveID(arg, "bisect id")
}

// LoadStored reads bisect id from store.
func LoadStored(ctx context.Context, store results.Store, id int64) (*Stored, error) {
	b, err := store.GetBisect(ctx, id)
	if err != nil {
		return nil, err
	}
	spec, res, err := Load(b)
	if err != nil {
		return nil, err
	}
	s := &Stored{Ended: Ended{ID: id, Spec: spec, Result: res}, Bisect: b}
	if res != nil && !res.Reproduced && b.Status == results.RunComplete {
		s.Err = ErrNotReproduced
	}
	return s, nil
}

// Doc is s as bisect show --json prints it, with the culprit report;
// the report reads the culprit's commit from the git tree, and without
// the tree the stored bisect is still shown, ReportError saying why.
func (s *Stored) Doc(ctx context.Context, store results.Store) Doc {
	doc := NewDoc(s.Bisect, s.Spec, s.Result)
	var err error
	if doc.Report, err = s.Report(ctx, store); err != nil {
		doc.ReportError = err.Error()
	}
	return doc
}

// Reported is s as its culprit report states it: a bisect neither
// complete nor with a culprit (nor one that does not reproduce) is "not
// finished".
func (s *Stored) Reported() *Ended {
	o := s.Ended
	if s.Bisect.Status != results.RunComplete && o.Err == nil && (o.Result == nil || o.Result.Culprit == "") {
		o.Err = errors.New("not finished")
	}
	return &o
}
