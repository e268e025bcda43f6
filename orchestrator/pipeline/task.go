package pipeline

import (
	"context"
	"fmt"

	"github.com/kregress/kregress/results"
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
