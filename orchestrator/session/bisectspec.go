package session

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
)

// BisectRequest is the search `kregress bisect` is asked for: commits
// between Good and Bad, or the prefixes of Series on Base.
type BisectRequest struct {
	// Experiment is the -c it was given ("": the built-in default),
	// stored so that a resume measures alike.
	Experiment   string
	Good, Bad    string
	Series, Base string
	Metric       string
	Variant      string
	Alpha        float64
	Reps         []int
	Crash        bool
}

// NewBisectSpec is the search req asks for in cfg's git tree. What the
// user must fix (missing endpoints, an unknown metric or ref, no tree)
// is a usage error.
func NewBisectSpec(ctx context.Context, cfg *config.Config, req BisectRequest) (*bisect.Spec, error) {
	if (req.Metric == "" && !req.Crash) || (req.Series == "" && (req.Good == "" || req.Bad == "")) || (req.Series != "" && req.Base == "") {
		return nil, usage.Errorf("give --metric (or --crash) and either --good and --bad, or --series and --base")
	}
	if err := bisect.CheckMetricName(cfg.Workload.Name, cfg.WorkloadMetrics(), req.Metric); err != nil {
		return nil, usage.Wrap(err)
	}
	if cfg.Kernel.GitTree == "" {
		return nil, usage.Errorf("bisect needs a kernel git repository: --kernel.git-tree (kernel.git_tree)")
	}
	var spec *bisect.Spec
	var err error
	if req.Series != "" {
		spec, err = bisect.SeriesRange(cfg.Kernel.GitTree, req.Base, req.Series, filepath.Join(cfg.CacheDir, "bisect-series", CacheKey(req.Series+req.Base)))
	} else {
		spec, err = bisect.CommitRange(ctx, cfg.Kernel.GitTree, req.Good, req.Bad)
	}
	if err != nil {
		return nil, usage.Wrap(err)
	}
	spec.Experiment, spec.Metric, spec.Alpha, spec.Reps, spec.Crash = req.Experiment, req.Metric, req.Alpha, req.Reps, req.Crash
	if req.Variant != "" {
		if err := OnVariant(cfg, spec, req.Variant); err != nil {
			return nil, usage.Wrap(err)
		}
	}
	if req.Crash {
		spec.Metric = "kernel failures"
	}
	return spec, nil
}

// ResumedBisectSpec reads stored bisect id's search and the
// configuration of its experiment (load resolves an experiment with the
// command's flags; cfg is kept when the bisect stored none).
func ResumedBisectSpec(ctx context.Context, store results.Store, cfg *config.Config, id int64, load func(experiment string) (*config.Config, error)) (*config.Config, *bisect.Spec, error) {
	b, err := store.GetBisect(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	spec, _, err := bisect.Load(b)
	if err != nil {
		return nil, nil, err
	}
	if spec.Experiment != "" {
		if cfg, err = load(spec.Experiment); err != nil {
			return nil, nil, usage.Wrap(err)
		}
	}
	cfg.Kernel.GitTree = spec.GitTree
	if spec.Alpha != 0 || len(spec.Reps) > 0 {
		if err := bisect.CheckFlags(spec.Alpha, spec.Reps, spec.Crash); err != nil {
			return nil, nil, fmt.Errorf("bisect %d was stored with options this version refuses: %w", id, err)
		}
	}
	return cfg, spec, nil
}
