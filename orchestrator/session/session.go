// Package session runs an experiment the way every kregress command that
// measures does (run, nightly, seeds, the bench): the checks that need no
// build, the measured run (new or resumed) and, when the configuration asks
// for it, the correctness gate's debug pass (debugpass.go) as a run of its
// own, judged on what a debug kernel can say. The commands render the
// results; this package decides what is run and how it is judged.
package session

import (
	"context"
	"fmt"
	"time"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/diffset"
)

// Session measures experiments into one store.
type Session struct {
	Store  results.Store
	Report progress.Reporter
	// AutoDebug makes debug.pass auto run the debug pass for a family
	// whose candidates change locking (kregress run); without it only
	// debug.pass on does (see DebugEnabled).
	AutoDebug bool
	// Prober builds and boots a bisect's points; nil is the pipeline's
	// (bisect.PipelineProber).
	Prober bisect.Prober
	// Now is the clock a run's budget (looks.max_minutes) is read on;
	// nil is time.Now.
	Now func() time.Time
	// Measurer measures the session's runs; nil is the pipeline.
	Measurer Measurer
}

// Measurer measures runs into a store: a new run (resume 0) or the rest
// of stored run resume, and a stored run's further look (more
// repetitions into the same run: Extend). The pipeline is one
// (PipelineMeasurer); tests give fakes.
type Measurer interface {
	Measure(ctx context.Context, cfg *config.Config, sel *variants.Selection, store results.Store, resume int64, report progress.Reporter) (int64, *pipeline.Prepared, error)
	Extend(ctx context.Context, cfg *config.Config, prep *pipeline.Prepared, store results.Store, runID int64, reps int, report progress.Reporter) error
}

// PipelineMeasurer is the pipeline as a Measurer.
type PipelineMeasurer struct{}

// Measure implements Measurer.
func (PipelineMeasurer) Measure(ctx context.Context, cfg *config.Config, sel *variants.Selection, store results.Store, resume int64, report progress.Reporter) (int64, *pipeline.Prepared, error) {
	if resume != 0 {
		prep, err := pipeline.ResumeExperiment(ctx, cfg, sel, store, resume, report)
		return resume, prep, err
	}
	return pipeline.RunExperiment(ctx, cfg, sel, store, report)
}

// Extend implements Measurer.
func (PipelineMeasurer) Extend(ctx context.Context, cfg *config.Config, prep *pipeline.Prepared, store results.Store, runID int64, reps int, report progress.Reporter) error {
	return pipeline.ExtendExperiment(ctx, cfg, prep, store, runID, reps, report)
}

// now reads the session's clock.
func (s *Session) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// measurer is the session's Measurer.
func (s *Session) measurer() Measurer {
	if s.Measurer != nil {
		return s.Measurer
	}
	return PipelineMeasurer{}
}

// CheckJudgeable refuses, before anything is built, an experiment whose
// boots cannot reach alpha on its primary metrics, every candidate's
// judged together, even at its last look (its repetitions once per look,
// pooled, judged at looks.Each): its verdict could only be "unjudged".
func CheckJudgeable(cfg *config.Config, sel *variants.Selection, looks judging.Looks) error {
	if err := looks.Check(); err != nil {
		return err
	}
	candidates := len(sel.Variants) - 1
	if cfg.GateOnly || candidates < 1 {
		return nil
	}
	// A sweep judges every count's candidates as one family.
	candidates *= max(1, len(cfg.SweepCounts()))
	if err := compare.CheckReps(cfg.Repetitions*looks.N(), candidates, len(cfg.JudgedPrimary()), looks.Each()); err != nil {
		at := ""
		if looks.N() > 1 {
			at = fmt.Sprintf(" (%d looks of %d repetitions, pooled, each look at alpha %.3g / %d)", looks.N(), cfg.Repetitions, looks.Alpha, looks.N())
		}
		return fmt.Errorf("experiment %s%s: %w; --gate-only (gate_only: true) runs it judging only failures, kernel reports and selftests", cfg.Experiment, at, err)
	}
	return nil
}

// Check makes the checks of an experiment that need nothing unpacked or
// built, before anything is: the comparison options are valid, the
// repetitions can reach alpha by the last look, the workload's parameters
// parse. What the user must fix is a usage error (internal/usage). The
// refusals that need the trees (a primary metric no tree can produce, a
// patch that does not apply) are pipeline.Preflight's: Prepare makes them
// before the first build, and Plans for a dry run.
func Check(cfg *config.Config, sel *variants.Selection, looks judging.Looks) error {
	if err := judging.Options(cfg, looks.Alpha, judging.AnyWorkload).Validate(); err != nil {
		return usage.Wrap(fmt.Errorf("--alpha or noise_floor_pct: %w", err))
	}
	if err := CheckJudgeable(cfg, sel, looks); err != nil {
		return usage.Wrap(err)
	}
	if _, err := pipeline.AgentCommand(cfg.Workload); err != nil {
		return usage.Wrap(err)
	}
	return nil
}

// Plans are the kernels cfg's experiment would build, after every
// refusal the run's preparation would make (pipeline.Preflight): what a
// dry run shows, having built nothing.
func (s *Session) Plans(ctx context.Context, cfg *config.Config, sel *variants.Selection) ([]pipeline.BuildPlan, error) {
	plans, err := pipeline.Plan(ctx, cfg, sel)
	if err != nil {
		return nil, err
	}
	return plans, pipeline.Preflight(ctx, cfg, sel.Family, plans, s.Report)
}

// Measure runs cfg's experiment into a new run (resume 0), or finishes
// run resume with the configuration it was started with. The run ID is 0
// when nothing was stored; on pipeline.ErrDetached the cells were handed
// to a scheduler and the run finishes itself.
func (s *Session) Measure(ctx context.Context, cfg *config.Config, sel *variants.Selection, resume int64) (int64, *pipeline.Prepared, error) {
	return s.measurer().Measure(ctx, cfg, sel, s.Store, resume, s.Report)
}

// DebugWanted says whether this session runs the debug pass of cfg's
// experiment: enabled for it (DebugEnabled) and a comparison to judge
// (two variants or more).
func (s *Session) DebugWanted(cfg *config.Config, sel *variants.Selection) bool {
	return DebugEnabled(cfg, sel.Family, s.AutoDebug) && len(sel.Variants) >= 2
}

// debugLeftOut says whether a run that could have had a debug pass has
// none only because debug.pass is auto and its family (a --patch run's
// too) is not marked as changing locking: the user should know that no
// lockdep kernel looked at the candidate, and how to ask for one.
func (s *Session) debugLeftOut(cfg *config.Config, sel *variants.Selection) bool {
	return s.AutoDebug && cfg.Debug.Pass == "auto" && len(sel.Variants) >= 2 && !DebugEnabled(cfg, sel.Family, true)
}

// Debug runs the debug pass of cfg's experiment as a run of its own and
// returns its run ID; the measured run is already stored. Judge it with
// DebugOptions: the debug kernels' figures mean nothing (the checks slow
// every lock).
func (s *Session) Debug(ctx context.Context, cfg *config.Config, sel *variants.Selection) (int64, error) {
	id, _, err := pipeline.RunExperiment(ctx, DebugConfig(cfg), sel, s.Store, s.Report)
	if err != nil {
		if id != 0 {
			return id, fmt.Errorf("debug pass, run %d: %w (the measured run is stored)", id, err)
		}
		return 0, fmt.Errorf("debug pass: %w (the measured run is stored)", err)
	}
	return id, nil
}

// DebugOptions judge a debug pass's run: failures, kernel reports and
// selftests only.
func DebugOptions(opts compare.Options) compare.Options {
	opts.GateOnly = true
	return opts
}

// DebugPlans are the kernels the debug pass of cfg's experiment would
// build, for a dry run.
func DebugPlans(ctx context.Context, cfg *config.Config, sel *variants.Selection) ([]pipeline.BuildPlan, error) {
	plans, err := pipeline.Plan(ctx, DebugConfig(cfg), sel)
	if err != nil {
		return nil, fmt.Errorf("debug pass: %w", err)
	}
	return plans, nil
}

// Judge compares stored run id's variants against its baseline.
func Judge(ctx context.Context, store results.Store, id int64, opts compare.Options) (*compare.Diff, error) {
	set, err := diffset.Run(ctx, store, id, "")
	if err != nil {
		return nil, err
	}
	if len(set.Results) == 0 {
		return nil, fmt.Errorf("run %d has no results", id)
	}
	return compare.Compare(set.Results, set.Run.Baseline, opts)
}

// NightlyDebug is the nightly's debug pass (nightly.DebugPass) through
// this session: with debug.pass on, the experiment's variants built with
// the debug fragments, judged with DebugOptions; nil when the experiment
// gets no pass. The nightly fails the night on a finding.
func (s *Session) NightlyDebug(ctx context.Context, cfg *config.Config, sel *variants.Selection) (*nightly.DebugFinding, error) {
	if !s.DebugWanted(cfg, sel) {
		return nil, nil
	}
	id, err := s.Debug(ctx, cfg, sel)
	if err != nil {
		return nil, err
	}
	d, err := Judge(ctx, s.Store, id, DebugOptions(judging.Options(cfg, 0.05, judging.AnyWorkload)))
	if err != nil {
		return nil, err
	}
	return &nightly.DebugFinding{RunID: id, Flagged: d.Failing()}, nil
}
