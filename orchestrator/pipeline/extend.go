package pipeline

import (
	"context"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
)

// Extend measures more repetitions of stored run runID into the same run:
// the cells that reps repetitions per variant add to the run's own
// schedule (its order and seed, so the cells it has keep their places),
// and any cell it lacks. The run may be complete, interrupted or failed,
// not running; p must build the very kernels it measured. Its stored
// configuration then says reps, so a later resume, `results show` and
// the reproduction instructions say what was measured.
func (e *Executor) Extend(ctx context.Context, runID int64, p *Prepared, reps int) error {
	bg := context.Background()
	run, err := e.Store.GetRun(bg, runID)
	if err != nil {
		return err
	}
	if run.Status != results.RunComplete && !run.Status.Resumable() {
		return fmt.Errorf("run %d is %s: only a finished, interrupted or failed run can be given more repetitions", runID, run.Status)
	}
	sched, err := StoredSchedule(run.Config)
	if err != nil {
		return fmt.Errorf("run %d: %w", runID, err)
	}
	if reps <= sched.Repetitions {
		return fmt.Errorf("run %d has %d repetitions per variant already: give more than that to extend it", runID, sched.Repetitions)
	}
	done, err := e.doneCells(bg, run, p)
	if err != nil {
		return err
	}
	extended, err := WithRepetitions(run.Config, reps)
	if err != nil {
		return fmt.Errorf("run %d: %w", runID, err)
	}
	if err := e.Store.ExtendRun(bg, runID, extended); err != nil {
		return err
	}
	say := fmt.Sprintf("run %%d: %d -> %d repetitions per variant: %%d of %%d cells to run", sched.Repetitions, reps)
	return e.runMissing(ctx, runID, p, sched.Cells(p.Names(), reps), done, say)
}

// ExtendExperiment is Extend for an experiment already prepared (its
// kernels built): the cells run where cfg says, into store.
func ExtendExperiment(ctx context.Context, cfg *config.Config, prep *Prepared, store results.Store, runID int64, reps int, report progress.Reporter) error {
	ex, err := newExecutor(cfg, prep, store, report)
	if err != nil {
		return err
	}
	return ex.Extend(ctx, runID, prep, reps)
}

// WithRepetitions is a run's stored configuration with its repetitions
// set to reps, everything else (comments and order too) as it was.
func WithRepetitions(configYAML string, reps int) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(configYAML), &doc); err != nil {
		return "", fmt.Errorf("stored config: %w", err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return "", fmt.Errorf("stored config is not a mapping")
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "repetitions" {
			root.Content[i+1].Value = strconv.Itoa(reps)
			out, err := yaml.Marshal(&doc)
			return string(out), err
		}
	}
	return "", fmt.Errorf("stored config has no repetitions")
}
