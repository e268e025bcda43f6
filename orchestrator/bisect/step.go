package bisect

// `kregress bisect step`: one step of `git bisect run`, the commit
// checked out in the tree measured against fresh boots of both
// endpoints (StepOnce).

import (
	"context"
	"errors"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
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
