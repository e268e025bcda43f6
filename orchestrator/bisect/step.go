package bisect

// `kregress bisect step`: one step of `git bisect run`, the commit
// checked out in the tree measured against fresh boots of both
// endpoints (StepOnce).

import (
	"context"
	"errors"
	"fmt"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/verdict"
)

// StepRequest is what `bisect step` is asked: the endpoints, the
// metric, the boots per look (as --repetitions gives them) and alpha.
type StepRequest struct {
	Good, Bad, Metric, RepsText string
	Alpha                       float64
	// reps: RepsText read by Check.
	reps []int
}

// Check refuses, before the store is opened, a step missing an endpoint,
// the metric or tree, or whose looks are too small for alpha.
func (r *StepRequest) Check(tree string) error {
	reps, err := ParseReps(r.RepsText)
	if err != nil || r.Metric == "" || r.Good == "" || r.Bad == "" || tree == "" {
		return errors.New("give --good, --bad, --metric and --kernel.git-tree; --repetitions as " + RepsString(DefaultReps))
	}
	r.reps = reps
	return CheckFlags(r.Alpha, reps, false)
}

// StepHead measures the commit checked out in cfg's git tree (what git
// bisect run left there; the step's Commit) against r's endpoints, the
// figures kept in store, and says which it is like. r must have passed
// Check.
func StepHead(ctx context.Context, cfg *config.Config, store results.Store, rep progress.Reporter, r *StepRequest) (Step, error) {
	spec, err := CommitRange(ctx, cfg.Kernel.GitTree, r.Good, r.Bad)
	if err != nil {
		return Step{}, err
	}
	head, err := HeadCommit(ctx, cfg.Kernel.GitTree)
	if err != nil {
		return Step{}, err
	}
	spec.Points[head] = Point{Ref: head}
	good, bad := spec.Names[0], spec.Names[len(spec.Names)-1]
	prober := &PipelineProber{Cfg: cfg, Points: spec.Points, Metric: r.Metric, Store: store, Report: rep}
	return StepOnce(ctx, prober, head, good, bad, Options{Alpha: r.Alpha, Reps: r.reps, Range: len(spec.Names) - 1, Report: rep})
}

// StepPorts are how `bisect step` reaches its command: the store it
// opens (once the request is checked) and where it reports progress.
type StepPorts struct {
	Open   func(ctx context.Context, spec string) (results.Store, error)
	Report progress.Reporter
}

// Run is `bisect step` once cfg is loaded: r checked, cfg's store opened
// (ports.Open), the tree's HEAD measured (StepHead) and said on
// out.Stdout as "COMMIT: VERDICT (WHY)"; the error is the exit git
// bisect run expects (verdict.End: 0 good, 1 bad, 125 skip). What stops
// it from measuring is said on out.Stderr and exits ExitStepAbort (128),
// which stops git bisect run rather than marking the commit.
func (r *StepRequest) Run(ctx context.Context, cfg *config.Config, ports StepPorts, out Output) error {
	step, err := r.run(ctx, cfg, ports)
	if err != nil {
		fmt.Fprintln(out.Stderr, "kregress bisect step:", err)
		return verdict.ExitError(verdict.ExitStepAbort)
	}
	fmt.Fprintf(out.Stdout, "%.12s: %s (%s)\n", step.Commit, step.Verdict, step.Why)
	return verdict.End(step.Verdict)
}

// run checks r, opens the store and measures the step.
func (r *StepRequest) run(ctx context.Context, cfg *config.Config, ports StepPorts) (Step, error) {
	if err := r.Check(cfg.Kernel.GitTree); err != nil {
		return Step{}, err
	}
	store, err := ports.Open(ctx, cfg.StoreSpec())
	if err != nil {
		return Step{}, err
	}
	defer store.Close()
	return StepHead(ctx, cfg, store, ports.Report, r)
}
