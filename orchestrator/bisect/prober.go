package bisect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

// Point is one kernel state a bisect can test: a git ref, plus patches
// (a prefix of a series) on top.
type Point struct {
	Ref     string   `json:"ref"`
	Patches []string `json:"patches,omitempty"` // absolute paths
}

// PipelineProber builds and measures points with the real pipeline: each
// measurement is one run of the experiment whose family has the variants
// good, bad and step (the point under test), interleaved as every run is.
type PipelineProber struct {
	Cfg    *config.Config // the experiment: workload, VM shape, store
	Points map[string]Point
	Metric string
	// Crash: a failing endpoint kernel is counted, not an error.
	Crash  bool
	Store  results.Store
	Report progress.Reporter
	// goodFails: the selftests the good endpoint failed in the runs seen
	// (crash mode boots a step without good; its gate still compares
	// with good's failures).
	goodFails map[string]bool
}

// LearnGood implements goodLearner: it reads the good endpoint's selftest
// failures from the stored runs ids (the endpoints' looks), so a step run
// without good - or a resumed bisect - still discounts them.
func (p *PipelineProber) LearnGood(ctx context.Context, ids []int64) error {
	for _, id := range ids {
		rs, err := p.Store.Results(ctx, id)
		if err != nil {
			return fmt.Errorf("bisect: the endpoints' run %d: %w", id, err)
		}
		p.learn(rs)
	}
	return nil
}

func (p *PipelineProber) learn(rs []*results.Result) {
	if p.goodFails == nil {
		p.goodFails = map[string]bool{}
	}
	for k := range goodFailures(rs) {
		p.goodFails[k] = true
	}
}

const (
	goodVariant = "good"
	badVariant  = "bad"
	stepVariant = "step"
)

// config returns the experiment's config with a family "bisect" holding
// the given variant -> point names.
func (p *PipelineProber) config(points map[string]string, reps int) (*config.Config, *variants.Selection, error) {
	cfg := *p.Cfg
	// The family's baseline is good when good is booted; crash mode boots
	// only what its decision needs (the step alone, or the bad endpoint
	// alone), and then that point is the baseline.
	baseline := ""
	for _, v := range []string{goodVariant, stepVariant, badVariant} {
		if _, ok := points[v]; ok {
			baseline = v
			break
		}
	}
	if baseline == "" {
		return nil, nil, errors.New("bisect: a run of no point")
	}
	fam := &patches.Family{Workload: cfg.Workload.Name, Baseline: baseline, Variants: map[string]*patches.Variant{}}
	var names []string
	for variant, name := range points {
		pt, ok := p.Points[name]
		if !ok {
			return nil, nil, fmt.Errorf("bisect: unknown point %q", name)
		}
		fam.Variants[variant] = &patches.Variant{Ref: pt.Ref, Patches: pt.Patches}
		if variant != baseline {
			names = append(names, variant)
		}
	}
	sort.Strings(names)
	cfg.Families = map[string]*patches.Family{"bisect": fam}
	cfg.Family, cfg.Variants, cfg.Patches = "bisect", names, ""
	if reps > 0 {
		cfg.Repetitions = reps
	}
	cfg.Kernel.Source = "git"
	if !p.Crash {
		// A metric bisect's decision reads one metric; the selftest gate
		// (about a minute in the first boot of every variant of every
		// look) decides nothing in it. Crash mode keeps it: a selftest
		// failure good never has is a failure there.
		cfg.Selftests.Repetitions = 0
	}
	sel, err := variants.Resolve(&cfg)
	if err != nil {
		return nil, nil, err
	}
	return &cfg, sel, nil
}

// Build implements Prober.
func (p *PipelineProber) Build(ctx context.Context, name string) (string, error) {
	return p.BuildJobs(ctx, name, 0)
}

// BuildJobs builds like Build with make -j jobs (0: the experiment's
// kernel.jobs): a speculative build takes only the cores the guests leave
// free. The jobs are no part of the kernel's cache key.
func (p *PipelineProber) BuildJobs(ctx context.Context, name string, jobs int) (string, error) {
	cfg, sel, err := p.config(map[string]string{goodVariant: name}, 0)
	if err != nil {
		return "", err
	}
	if jobs > 0 {
		cfg.Kernel.Jobs = jobs
	}
	plans, err := pipeline.Plan(ctx, cfg, sel)
	if err != nil {
		return "", err
	}
	// The checks every run makes before it builds, with the bisected
	// metric as the primary: an endpoint whose tree cannot produce it, or
	// whose patches do not apply, is refused before its build (a patch
	// that does not apply at a step is still that step's skip, below).
	check := cfg
	if !p.Crash {
		c := *cfg
		c.PrimaryMetrics = []string{p.Metric}
		check = &c
	}
	report := p.Report
	if jobs > 0 {
		report = beside(report)
	}
	err = pipeline.Preflight(ctx, check, sel.Family, plans, report)
	if err == nil {
		var k *kernel.Kernel
		k, err = pipeline.BuildKernel(ctx, cfg, plans[0], report)
		if err == nil {
			return imageHash(k)
		}
	}
	var be *kernel.BuildError
	var pe *kernel.PatchError
	if errors.As(err, &be) {
		// The compiler's first error and the log, not the variant name
		// the build ran under (every point builds as "good").
		first := "make failed"
		if len(be.Errors) > 0 {
			first = be.Errors[0]
		}
		return "", &BuildError{Commit: name, Err: fmt.Errorf("%s (full log: %s)", first, be.Log)}
	}
	if errors.As(err, &pe) {
		return "", &BuildError{Commit: name, Err: err}
	}
	return "", err
}

// imageHash identifies a built kernel by its bzImage's bytes: two points
// that build the same image need not be measured twice.
func imageHash(k *kernel.Kernel) (string, error) {
	f, err := os.Open(k.BzImage)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// UnknownMetricError: the experiment does not produce the metric.
type UnknownMetricError struct {
	Metric string
	Have   []string
}

func (e *UnknownMetricError) Error() string {
	return fmt.Sprintf("the experiment does not produce a metric %q; it produces: %s", e.Metric, strings.Join(e.Have, ", "))
}

// Measure implements Prober.
func (p *PipelineProber) Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error) {
	points := map[string]string{}
	for v, name := range map[string]string{goodVariant: good, badVariant: bad, stepVariant: step} {
		if name != "" {
			points[v] = name
		}
	}
	cfg, sel, err := p.config(points, reps)
	if err != nil {
		return nil, err
	}
	id, _, err := pipeline.RunExperiment(ctx, cfg, sel, p.Store, p.Report)
	if err != nil {
		return nil, err
	}
	rs, err := p.Store.Results(ctx, id)
	if err != nil {
		return nil, err
	}
	p.learn(rs)
	s, err := tally(rs, p.Metric, p.Crash, p.goodFails)
	if err != nil {
		return nil, fmt.Errorf("bisect: run %d: %w", id, err)
	}
	s.RunID = id
	return s, nil
}

// goodFailures are the selftests some good cell of rs failed.
func goodFailures(rs []*results.Result) map[string]bool {
	fails := map[string]bool{}
	for _, r := range rs {
		if r.Variant == goodVariant {
			for _, t := range r.Selftests {
				if compare.SelftestFailed(t.Outcome) {
					fails[t.Key()] = true
				}
			}
		}
	}
	return fails
}

// tally sorts one run's cells into the samples of good, bad and step. A
// kernel failure of the step counts as a crash; of an endpoint, it counts
// in crash mode and is an error otherwise. In crash mode the selftest gate
// counts too: a cell of step or bad that fails a selftest no good cell
// fails is counted as failing, as a crash is (bad = "crashes or the gate
// flags it").
func tally(rs []*results.Result, metric string, crash bool, known map[string]bool) (*Samples, error) {
	s := &Samples{}
	goodFails := goodFailures(rs)
	for k := range known {
		goodFails[k] = true
	}
	flagged := func(r *results.Result) bool {
		for _, t := range r.Selftests {
			if compare.SelftestFailed(t.Outcome) && !goodFails[t.Key()] {
				return true
			}
		}
		return false
	}
	have := map[string]bool{}
	endpointFails := map[string]int{}
	for _, r := range rs {
		switch {
		case r.Status.OK():
			if crash && r.Variant != goodVariant && flagged(r) {
				if r.Variant == stepVariant {
					s.Crashed++
				} else {
					s.BadCrashed++
				}
				continue
			}
		case r.Status.KernelFailure():
			switch {
			case r.Variant == stepVariant:
				s.Crashed++
			case crash && r.Variant == goodVariant:
				s.GoodCrashed++
			case crash && r.Variant == badVariant:
				s.BadCrashed++
			default:
				// One failed boot of an endpoint (a guest that did not
				// offer SSH in time on a loaded host) says little of
				// its kernel, as for a step's commit: the endpoint is
				// given up only when it fails again.
				endpointFails[r.Variant]++
				if endpointFails[r.Variant] >= 2 {
					return nil, fmt.Errorf("the %s endpoint's kernel failed in %d cells (last: %s): %s", r.Variant, endpointFails[r.Variant], r.Status, lines.First(r.Error))
				}
			}
			continue
		default:
			return nil, fmt.Errorf("%s rep %d: %s: %s", r.Variant, r.Repetition, r.Status, lines.First(r.Error))
		}
		for _, m := range r.Metrics {
			have[m.Name] = true
			if m.Name != metric {
				continue
			}
			// Guest output is hostile: a NaN or infinite figure has no
			// rank and no mean; refuse it, naming the cell.
			if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
				return nil, fmt.Errorf("%s rep %d: metric %s is %v: not a figure", r.Variant, r.Repetition, m.Name, m.Value)
			}
			switch r.Variant {
			case goodVariant:
				s.Good = append(s.Good, m.Value)
			case badVariant:
				s.Bad = append(s.Bad, m.Value)
			case stepVariant:
				s.Step = append(s.Step, m.Value)
			}
		}
	}
	if !crash && len(s.Good) == 0 && len(s.Bad) == 0 && len(s.Step) == 0 && len(have) > 0 {
		var names []string
		for n := range have {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, &UnknownMetricError{Metric: metric, Have: names}
	}
	return s, nil
}
