package session

// `kregress bisect`: a new search or a stored one resumed, run through
// the experiment's executor and stored after every step.

import (
	"context"
	"runtime"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
)

// BisectRun is one `kregress bisect`: the search Request asks for, or
// stored bisect Resume continued.
type BisectRun struct {
	Request BisectRequest
	// RepsText is --repetitions as given; Check reads it into
	// Request.Reps.
	RepsText string
	Resume   int64
	// NoConfirm: no confirmation of the culprit by revert.
	NoConfirm bool
}

// Check refuses, before anything builds, a resume id no bisect can have,
// a --repetitions that does not read, and (for a new search) an alpha
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
	if r.Resume != 0 {
		cfg, spec, err = ResumedBisectSpec(ctx, s.Store, cfg, r.Resume, load)
	} else {
		spec, err = NewBisectSpec(ctx, cfg, r.Request)
	}
	if err != nil {
		return nil, err
	}
	sess, err := s.bisectSession(cfg, spec, r.NoConfirm)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	o := &bisect.Ended{Spec: spec}
	if r.Resume != 0 {
		b, stored, res, err := sess.Resume(ctx, r.Resume)
		if b != nil {
			o.ID, o.Spec = b.ID, stored
		}
		o.Result, o.Err = res, err
		return o, nil
	}
	b, res, err := sess.Start(ctx, spec)
	if b != nil {
		o.ID = b.ID
	}
	o.Result, o.Err = res, err
	return o, nil
}

// bisectSession runs spec in cfg's experiment, with the speculative
// builds the host's free cores allow (bisect.SpeculationFor).
func (s *Session) bisectSession(cfg *config.Config, spec *bisect.Spec, noConfirm bool) (*bisect.Session, error) {
	prober := &bisect.PipelineProber{Cfg: cfg, Points: spec.Points, Metric: spec.Metric, Crash: spec.Crash, Store: s.Store, Report: s.Report}
	speculate, err := bisect.SpeculationFor(cfg, runtime.NumCPU())
	if err != nil {
		return nil, err
	}
	return &bisect.Session{Store: s.Store, Prober: prober, Report: s.Report, NoConfirm: noConfirm, Speculate: speculate}, nil
}
