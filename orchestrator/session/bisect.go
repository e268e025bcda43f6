package session

// `kregress bisect`: a new search or a stored one resumed, run through
// the experiment's executor and stored after every step.

import (
	"context"
	"fmt"
	"runtime"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

// BisectRun is one `kregress bisect`: the search Request asks for, or
// stored bisect Resume continued.
type BisectRun struct {
	Request BisectRequest
	// RepsText is --looks as given; Check reads it into
	// Request.Reps.
	RepsText string
	Resume   int64
	// NoConfirm: no confirmation of the culprit by revert.
	NoConfirm bool
	// Reports are -o FMT=FILE, the culprit report's files (nil: none):
	// resolved by Run once the request is checked.
	Reports *flagkit.Outputs
}

// BisectPorts are how `kregress bisect` reaches its command: resolving
// an experiment with the command's flags (a resumed bisect's), opening
// the store it records into, and reporting progress.
type BisectPorts struct {
	Load   func(experiment string) (*config.Config, error)
	Open   func(ctx context.Context, spec string) (results.Store, error)
	Report progress.Reporter
	// Prober builds and boots the bisect's points (nil: the pipeline).
	Prober bisect.Prober
}

// Run is `kregress bisect` once cfg is loaded: refused before anything
// builds when its cells would wait (WaitsForCells), r does not check
// (Check) or -o does not resolve; then the bisect run (Bisect) in the
// store ports.Open opens, its summary printed on out.Stdout and, once
// it was stored, its culprit report written into -o's files and
// $GITHUB_STEP_SUMMARY. The error is the command's exit: verdict.End of
// how the bisect ended (bisect.Ended's Verdict), or an error, which for
// a cancelled ctx (interrupted) says how to resume it.
func (r *BisectRun) Run(ctx context.Context, cfg *config.Config, ports BisectPorts, out bisect.Output) error {
	if err := WaitsForCells("bisect", cfg); err != nil {
		return err
	}
	if err := r.Check(); err != nil {
		return err
	}
	if r.Reports != nil {
		var err error
		if _, out.Files, err = r.Reports.Resolve(); err != nil {
			return err
		}
	}
	store, err := ports.Open(ctx, cfg.StoreSpec())
	if err != nil {
		return err
	}
	defer store.Close()
	o, err := (&Session{Store: store, Report: ports.Report, Prober: ports.Prober}).Bisect(ctx, cfg, ports.Load, r)
	if err != nil {
		return err
	}
	fmt.Fprintln(out.Stdout)
	format.WriteBisectSummary(out.Stdout, o.Summary())
	if o.ID != 0 {
		// Written even when interrupted: the steps so far are a report.
		if err := out.WriteReports(context.Background(), store, o, true); err != nil {
			return fmt.Errorf("bisect %d: the culprit report: %w", o.ID, err)
		}
	}
	v, err := o.Verdict(ctx.Err() != nil)
	if err != nil {
		return err
	}
	return verdict.End(v)
}

// Check refuses, before anything builds, a resume id no bisect can have,
// a --looks that does not read, and (for a new search) an alpha
// outside (0, 1) or looks too small for it: either could only ever end
// "does not reproduce".
func (r *BisectRun) Check() error {
	if r.Resume < 0 {
		return usage.Errorf("--resume %d is not a bisect id (see the id a bisect prints)", r.Resume)
	}
	reps, err := bisect.ParseReps(r.RepsText)
	if err != nil {
		return usage.Wrap(err)
	}
	r.Request.Reps = reps
	if r.Resume == 0 {
		if err := bisect.CheckFlags(r.Request.Alpha, reps, r.Request.Crash); err != nil {
			return usage.Wrap(err)
		}
	}
	return nil
}

// Bisect runs r (checked) in cfg's experiment, or, resumed, in the one
// the bisect stored (load resolves an experiment with the command's
// flags). An error is returned when the search could not be set up;
// once it runs, how it ended is the Outcome's.
func (s *Session) Bisect(ctx context.Context, cfg *config.Config, load func(experiment string) (*config.Config, error), r *BisectRun) (*bisect.Ended, error) {
	var spec *bisect.Spec
	var err error
	if err := cfg.OneCount("a bisect"); err != nil {
		return nil, usage.Wrap(err)
	}
	if r.Resume != 0 {
		cfg, spec, err = ResumedBisectSpec(ctx, s.Store, cfg, r.Resume, load)
	} else {
		spec, err = NewBisectSpec(ctx, cfg, r.Request)
	}
	if err != nil {
		return nil, err
	}
	runner, err := s.bisectRunner(cfg, spec, r.NoConfirm)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	o := &bisect.Ended{Spec: spec}
	if r.Resume != 0 {
		b, stored, res, err := runner.Resume(ctx, r.Resume)
		if b != nil {
			o.ID, o.Spec = b.ID, stored
		}
		o.Result, o.Err = res, err
		return o, nil
	}
	b, res, err := runner.Start(ctx, spec)
	if b != nil {
		o.ID = b.ID
	}
	o.Result, o.Err = res, err
	return o, nil
}

// bisectRunner runs spec in cfg's experiment, with the speculative
// builds the host's free cores allow (bisect.SpeculationFor).
func (s *Session) bisectRunner(cfg *config.Config, spec *bisect.Spec, noConfirm bool) (*bisect.Runner, error) {
	// One Reporter for the search and its prober: the prober's builds
	// and boots are drawn on the line of the search's phase.
	report := bisect.Lines(s.Report)
	var prober bisect.Prober = &bisect.PipelineProber{Cfg: cfg, Points: spec.Points, Metric: spec.Metric, Crash: spec.Crash, Store: s.Store, Report: report}
	if s.Prober != nil {
		prober = s.Prober
	}
	speculate, err := bisect.SpeculationFor(cfg, runtime.NumCPU())
	if err != nil {
		return nil, err
	}
	return &bisect.Runner{Store: s.Store, Prober: prober, Report: report, NoConfirm: noConfirm, Speculate: speculate}, nil
}
