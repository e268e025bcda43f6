package pipeline

import (
	"context"
	"fmt"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
)

// RunExperiment is one experiment end to end, as `kregress run`, the
// nightly and bisect do it: build (or find cached) every variant's kernel
// and the guest image, pin the git refs in cfg to the commits built (so
// the stored configuration replays exactly), then boot and measure every
// cell into store. The run ID is 0 when nothing was stored.
func RunExperiment(ctx context.Context, cfg *config.Config, sel *variants.Selection, store results.Store, report progress.Reporter) (int64, *Prepared, error) {
	prep, err := Prepare(ctx, cfg, sel, report)
	if err != nil {
		return 0, nil, err
	}
	commits, dirty := map[string]string{}, map[string]bool{}
	for _, v := range prep.Variants {
		commits[v.Name], dirty[v.Name] = v.Provenance.GitCommit, v.Provenance.Dirty
	}
	variants.Pin(cfg, sel, commits, dirty)
	ex, err := newExecutor(cfg, prep, store, report)
	if err != nil {
		return 0, prep, err
	}
	id, err := ex.Execute(ctx, cfg, prep)
	return id, prep, err
}

// ResumeExperiment finishes run runID, interrupted or failed, with the
// configuration it was started with: the kernels come from the cache (and
// must be the ones the run measured), and only its missing cells run.
// When cfg asks for more repetitions than the run has, the run (finished
// too) is extended to them instead (Executor.Extend).
func ResumeExperiment(ctx context.Context, cfg *config.Config, sel *variants.Selection, store results.Store, runID int64, report progress.Reporter) (*Prepared, error) {
	prep, err := Prepare(ctx, cfg, sel, report)
	if err != nil {
		return nil, err
	}
	ex, err := newExecutor(cfg, prep, store, report)
	if err != nil {
		return prep, err
	}
	if more, err := asksMore(ctx, store, runID, cfg); err != nil || more {
		if err != nil {
			return prep, err
		}
		return prep, ex.Extend(ctx, runID, prep, cfg.Repetitions)
	}
	return prep, ex.Resume(ctx, runID, prep)
}

// asksMore reports whether cfg asks for more repetitions than stored run
// runID has: its resume then extends it (kregress run --resume 12
// --repetitions 8, which a comparison that could not judge every metric
// suggests).
func asksMore(ctx context.Context, store results.Store, runID int64, cfg *config.Config) (bool, error) {
	run, err := store.GetRun(ctx, runID)
	if err != nil {
		return false, err
	}
	sched, err := StoredSchedule(run.Config)
	if err != nil {
		return false, fmt.Errorf("run %d: %w", runID, err)
	}
	return cfg.Repetitions > sched.Repetitions, nil
}

// newExecutor runs prep's cells where cfg says, into store.
func newExecutor(cfg *config.Config, prep *Prepared, store results.Store, report progress.Reporter) (*Executor, error) {
	cells, err := NewCellExecutor(cfg, prep, report)
	if err != nil {
		return nil, err
	}
	return &Executor{Store: store, Cells: cells, Settings: Settings(cfg, prep), ArtifactsDir: cfg.ArtifactsDir(), Report: report}, nil
}

// BuildKernel builds (or finds cached) one planned kernel, without the
// image or a boot: the one way the pipeline enters kernel.Builder.Build.
// Prepare builds each variant with it; bisect asks it first, to skip a
// commit that does not build and to recognise a bzImage already measured.
func BuildKernel(ctx context.Context, cfg *config.Config, plan BuildPlan, report progress.Reporter) (*kernel.Kernel, error) {
	return builder(cfg, report).Build(ctx, plan.Request)
}
