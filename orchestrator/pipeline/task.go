package pipeline

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// A cluster executor runs each cell of a job as a task of its own
// (`kregress cell`, one Slurm array task or Kubernetes index each): the
// task measures its cell into the store, and the last cell of the run to
// be stored finishes the run, so a detached run completes on its own.
// The run finishes the way the local executor finishes one
// (Executor.finish): complete, naming the cells that were not ok.

// TaskOutcome is what one task did: the cell's result, and whether it
// was measured now (false: an earlier attempt's was kept).
type TaskOutcome struct {
	Result   *results.Result
	Measured bool
}

// CellTask is kregress cell: cell Index (0-based, a Slurm array task
// ID) of the job file Job that the submitter wrote into the shared
// directory, labelled Executor in the cell's provenance (which task of
// which scheduler ran it). The command's flags bind straight into it.
type CellTask struct {
	Job      string
	Index    int
	Executor string
}

// Run is the task: its job read (ReadCellTask: a bad file or index is a
// usage error, found before the store is opened), its cell run into the
// store spec names (RunTaskIn) reporting to rep, and what it did said on
// log (TaskOutcome.Line), also when an error followed the cell's result.
func (t CellTask) Run(ctx context.Context, spec string, rep progress.Reporter, log io.Writer) error {
	job, err := ReadCellTask(t.Job, t.Index)
	if err != nil {
		return err
	}
	out, err := job.RunTaskIn(ctx, spec, rep, t.Index, t.Executor)
	if out != nil {
		fmt.Fprintln(log, out.Line(job.RunID))
	}
	return err
}

// ReadCellTask reads the job file of a task (kregress cell --job) and
// checks its cell (--index, a Slurm array task ID): what is wrong with
// either is the caller's, a usage error, found before anything is opened.
func ReadCellTask(path string, index int) (*CellJob, error) {
	job, err := ReadCellJob(path)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	if index < 0 || index >= len(job.Cells) {
		return nil, usage.Errorf("--index %d: the job has cells 0..%d", index, len(job.Cells)-1)
	}
	return job, nil
}

// RunTaskIn is RunTask into the store spec names (KREGRESS_STORE, which
// the submitter passes in the task's environment), with a runner of the
// job's settings reporting to rep. The store is opened as it is: marking
// stale runs is the submitter's job, not a task's.
func (j *CellJob) RunTaskIn(ctx context.Context, spec string, rep progress.Reporter, index int, executor string) (*TaskOutcome, error) {
	spec, err := store.Normalize(spec)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	opened, err := store.Open(spec)
	if err != nil {
		return nil, err
	}
	defer opened.Close()
	newRunner := func() (*CellRunner, error) { return j.Settings.Runner(rep) }
	return j.RunTask(ctx, opened, newRunner, index, executor)
}

// Line is what task o of run runID did, in one line for the task's log:
// the cell's status and summary, or that an earlier attempt's result was
// kept.
func (o *TaskOutcome) Line(runID int64) string {
	res := o.Result
	switch {
	case !o.Measured:
		return fmt.Sprintf("run %d cell %d (%s rep %d) already has a result (%s, stored %s): not measured again", runID, res.Seq, res.Variant, res.Repetition, res.Status, res.FinishedAt.Format(time.RFC3339))
	case res.Superseded:
		return fmt.Sprintf("run %d cell %d (%s rep %d): %s%s (another attempt stored this cell's result first; this one is kept as history)", runID, res.Seq, res.Variant, res.Repetition, res.Status, SummaryLine(res))
	}
	return fmt.Sprintf("run %d cell %d (%s rep %d): %s%s", runID, res.Seq, res.Variant, res.Repetition, res.Status, SummaryLine(res))
}

// RunTask runs cell index of the job into store with the runner
// newRunner makes (only when the cell is measured: a retried task needs
// no image), labelled
// executor in the cell's provenance, and finishes the run when this was
// its last cell. A retried task (Kubernetes per-index retry, a requeue)
// whose cell already has a measurement does not measure it again: the
// store would keep the first one anyway (results.Store.AddResult). A task
// signalled mid-cell (ctx cancelled: scancel, preemption, a time limit)
// stores the cell as infra_error with what was measured so far. Store
// writes use their own context: a signal must not lose them.
func (j *CellJob) RunTask(ctx context.Context, store results.Store, newRunner func() (*CellRunner, error), index int, executor string) (*TaskOutcome, error) {
	if index < 0 || index >= len(j.Cells) {
		return nil, fmt.Errorf("cell %d: the job has cells 0..%d", index, len(j.Cells)-1)
	}
	bg := context.Background()
	seq := j.Cells[index].Seq
	prev, err := measured(bg, store, j.RunID, seq)
	if err != nil {
		return nil, fmt.Errorf("run %d cell %d: %w", j.RunID, seq, err)
	}
	if prev != nil {
		return &TaskOutcome{Result: prev}, j.finishIfLast(bg, store)
	}
	runner, err := newRunner()
	if err != nil {
		return nil, err
	}
	runner.Executor = executor
	res := j.RunCell(ctx, runner, index)
	if ctx.Err() != nil && res.Status == results.StatusIncomplete {
		res.Status = results.StatusInfra
		res.Error = "the task was signalled mid-cell (scancel, preemption or a time limit): " + res.Error
	}
	if err := store.AddResult(bg, res); err != nil {
		return nil, fmt.Errorf("run %d cell %d: %w", j.RunID, res.Seq, err)
	}
	return &TaskOutcome{Result: res, Measured: true}, j.finishIfLast(bg, store)
}

// measured returns the cell's current result when it is a kernel outcome
// (not infra_error or incomplete, which a new attempt replaces).
func measured(ctx context.Context, store results.Store, runID int64, seq int) (*results.Result, error) {
	rs, err := store.Results(ctx, runID)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if r.Seq == seq && !r.Status.Infra() {
			return r, nil
		}
	}
	return nil, nil
}

// finishIfLast completes the run once every cell of the job has a
// result. Cells are counted by position (seq), not rows: a cell stored
// twice is one cell, and never stands in for one that did not run.
func (j *CellJob) finishIfLast(ctx context.Context, store results.Store) error {
	rs, err := store.Results(ctx, j.RunID)
	if err != nil {
		return err
	}
	have := map[int]bool{}
	for _, r := range rs {
		have[r.Seq] = true
	}
	for _, c := range j.Cells {
		if !have[c.Seq] {
			return nil
		}
	}
	run, err := store.GetRun(ctx, j.RunID)
	if err != nil || run.Status == results.RunComplete {
		return err
	}
	return completeRun(ctx, store, j.RunID, rs, len(have))
}

// completeRun marks run runID complete, naming which of its want cells
// were not ok (NotOK): the one way a run completes, in this process or
// in the task that stored its last cell.
func completeRun(ctx context.Context, store results.Store, runID int64, stored []*results.Result, want int) error {
	return store.FinishRun(ctx, runID, results.RunComplete, NotOK(stored, want))
}

// TaskLabeler is implemented by a registered executor kind whose tasks
// run `kregress cell`: from a task's environment (getenv), which of its
// tasks runs the cell, for the cell's provenance; false outside one.
type TaskLabeler interface {
	TaskLabel(getenv func(string) string) (string, bool)
}

// TaskLabel labels the cell that `kregress cell` runs in this
// environment for its provenance: the first registered kind that
// recognises one of its tasks, else "cell command".
func TaskLabel(getenv func(string) string) string {
	for _, k := range config.Executors() {
		if l, ok := k.(TaskLabeler); ok {
			if label, ok := l.TaskLabel(getenv); ok {
				return label
			}
		}
	}
	return "cell command"
}

// NotOK says which of a run's cells were not ok ("cells not ok: 2
// crashed, 1 infra_error"), or "" when all want of them are.
func NotOK(rs []*results.Result, want int) string {
	counts := map[string]int{} // a status, or "missing"
	ok := 0
	for _, r := range rs {
		if r.Status.OK() {
			ok++
		} else {
			counts[string(r.Status)]++
		}
	}
	if missing := want - len(rs); missing > 0 {
		counts["missing"] = missing
	}
	if ok >= want || len(counts) == 0 {
		return ""
	}
	var parts []string
	for s, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(parts)
	return "cells not ok: " + strings.Join(parts, ", ")
}
