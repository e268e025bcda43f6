package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"gopkg.in/yaml.v3"
)

// Executor runs the cells of a prepared experiment into a store.
type Executor struct {
	Store results.Store
	// Cells runs the scheduled cells: here (Local) or on a cluster.
	Cells CellExecutor
	// Settings are the cells' limits and image (see Settings).
	Settings CellSettings
	// ArtifactsDir gets a run-N directory per run (config.ArtifactsDir).
	ArtifactsDir string
	Report       progress.Reporter
}

// Execute creates the run, runs every cell interleaved and finishes the
// run. It returns the run ID; on Ctrl-C (ctx cancelled) the run is stored
// as interrupted and ctx's error is returned with its ID.
func (e *Executor) Execute(ctx context.Context, cfg *config.Config, p *Prepared) (int64, error) {
	if cfg.Seed == 0 {
		// Recorded in the run's stored config: the order can be replayed.
		c := *cfg
		c.Seed = uint64(time.Now().UnixNano())
		cfg = &c
	}
	run := &results.Run{
		Experiment: cfg.Experiment, Family: p.Family.Name, Baseline: p.Family.Baseline,
		Variants: p.Names(), StartedAt: time.Now().UTC(), Status: results.RunRunning,
		Config: cfg.YAML(), Host: HostInfo(),
	}
	// Store writes use their own context: a Ctrl-C must not lose them.
	if err := e.Store.CreateRun(context.Background(), run); err != nil {
		return 0, err
	}
	job := &CellJob{
		RunID: run.ID, Cells: SweepSchedule(p.Names(), cfg.SweepCounts(), cfg.Repetitions, Order(cfg.Order), cfg.Seed),
		Variants: p.Variants, AgentCmd: p.AgentCmd, Settings: e.Settings,
		ArtifactsDir: filepath.Join(e.ArtifactsDir, fmt.Sprintf("run-%d", run.ID)),
	}
	return run.ID, e.finish(ctx, run.ID, job, len(job.Cells))
}

// finish runs job's cells and finishes the run, which then holds want
// cells in all: complete (naming cells not ok), interrupted on Ctrl-C,
// failed on an error; left running when the executor detached.
func (e *Executor) finish(ctx context.Context, runID int64, job *CellJob, want int) error {
	bg := context.Background()
	if err := e.Cells.RunCells(ctx, job, e.Store); err != nil {
		if errors.Is(err, ErrDetached) {
			if derr := e.Store.DetachRun(bg, runID); derr != nil {
				return derr
			}
			return err
		}
		if ctx.Err() != nil {
			e.Store.FinishRun(bg, runID, results.RunInterrupted, "interrupted: "+ctx.Err().Error())
			return ctx.Err()
		}
		e.Store.FinishRun(bg, runID, results.RunFailed, err.Error())
		return err
	}
	stored, err := e.Store.Results(bg, runID)
	if err != nil {
		return err
	}
	return completeRun(bg, e.Store, runID, stored, want)
}

// Resume finishes an interrupted (or failed) run: p must build the very
// kernels the run measured (compared by kernel key), and only the cells
// the run has no result for are run, in the run's own order and seed, into
// the same run. A cell that was in flight when the run stopped (stored as
// incomplete) runs again; its incomplete record is kept as the cell's
// history (results.Store.History), no longer among its results.
func (e *Executor) Resume(ctx context.Context, runID int64, p *Prepared) error {
	bg := context.Background()
	run, err := e.Store.GetRun(bg, runID)
	if err != nil {
		return err
	}
	if !run.Status.Resumable() {
		return fmt.Errorf("run %d is %s: only an interrupted or failed run can be resumed", runID, run.Status)
	}
	done, err := e.doneCells(bg, run, p)
	if err != nil {
		return err
	}
	sched, err := StoredSchedule(run.Config)
	if err != nil {
		return fmt.Errorf("run %d: %w", runID, err)
	}
	if err := e.Store.ReopenRun(bg, runID); err != nil {
		return err
	}
	return e.runMissing(ctx, runID, p, sched.Cells(p.Names(), sched.Repetitions), done, "resuming run %d: %d of %d cells to run")
}

// runMissing runs the cells of all that done has no result for into
// reopened run runID and finishes it, saying so with say (a format taking
// the run, the cells to run and all cells).
func (e *Executor) runMissing(ctx context.Context, runID int64, p *Prepared, all []Cell, done map[int]bool, say string) error {
	var missing []Cell
	for _, c := range all {
		if !done[c.Seq] {
			missing = append(missing, c)
		}
	}
	e.Report(say, runID, len(missing), len(all))
	job := &CellJob{
		RunID: runID, Cells: missing, Variants: p.Variants, AgentCmd: p.AgentCmd, Settings: e.Settings,
		ArtifactsDir: filepath.Join(e.ArtifactsDir, fmt.Sprintf("run-%d", runID)),
	}
	return e.finish(ctx, runID, job, len(all))
}

// doneCells checks that p builds the very variants and kernels stored run
// measured (a resume or an extension measures into it with the same
// kernels) and returns the cells it has a result for, by sequence number;
// a cell stored incomplete (in flight when the run stopped) is not done.
func (e *Executor) doneCells(ctx context.Context, run *results.Run, p *Prepared) (map[int]bool, error) {
	if got, want := strings.Join(p.Names(), ","), strings.Join(run.Variants, ","); got != want {
		return nil, fmt.Errorf("run %d measured variants %s; this configuration has %s: resume with the configuration the run was started with", run.ID, want, got)
	}
	stored, err := e.Store.Results(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	keys := map[string]string{}
	for _, v := range p.Variants {
		keys[v.Name] = v.Provenance.KernelKey
	}
	done := map[int]bool{}
	for _, r := range stored {
		if k := r.Provenance.KernelKey; k != "" && k != keys[r.Variant] {
			return nil, fmt.Errorf("run %d measured %s with kernel %s; this configuration builds %s: resume with the configuration (and source) the run was started with", run.ID, r.Variant, k, keys[r.Variant])
		}
		if r.Status != results.StatusIncomplete {
			done[r.Seq] = true
		}
	}
	return done, nil
}

// ScheduleSettings are what fix a run's cell order.
type ScheduleSettings struct {
	Repetitions int    `yaml:"repetitions"`
	Order       string `yaml:"order"`
	Seed        uint64 `yaml:"seed"`
	VM          struct {
		// CPUsSweep: the run's vm.cpus_sweep (none without a sweep).
		CPUsSweep []int `yaml:"cpus_sweep"`
	} `yaml:"vm"`
}

// Cells are the run's cells at reps repetitions of variants, in its own
// order, seed and vCPU sweep: a resume or an extension finds every cell
// the run has at its place.
func (s ScheduleSettings) Cells(variants []string, reps int) []Cell {
	return SweepSchedule(variants, s.VM.CPUsSweep, reps, Order(s.Order), s.Seed)
}

// StoredSchedule reads the order settings from a run's stored config.
func StoredSchedule(configYAML string) (ScheduleSettings, error) {
	var s ScheduleSettings
	if err := yaml.Unmarshal([]byte(configYAML), &s); err != nil {
		return s, fmt.Errorf("stored config: %w", err)
	}
	if s.Repetitions < 1 {
		return s, fmt.Errorf("stored config has no repetitions")
	}
	return s, nil
}
