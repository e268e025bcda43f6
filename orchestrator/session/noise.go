package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/noise"
	"github.com/kregress/kregress/results/verdict"
)

// NoiseBoots is `kregress noise`'s default number of boots: its own, as
// the experiment's repetitions are for comparing, and 5 boots say little
// about the spread.
const NoiseBoots = 8

// NoiseBootsOf is how many boots noise measures: cfg's repetitions when
// the command line set them (set), else NoiseBoots; fewer than 3 or more
// than config.MaxRepetitions is a usage error.
func NoiseBootsOf(cfg *config.Config, set bool) (int, error) {
	boots := NoiseBoots
	if set {
		boots = cfg.Repetitions
	}
	if boots < 3 || boots > config.MaxRepetitions {
		return 0, usage.Wrap(fmt.Errorf("--repetitions %d: want 3..%d (16 gives a usable estimate)", boots, config.MaxRepetitions))
	}
	return boots, nil
}

// NoiseSelection narrows cfg and sel to what noise measures: the one
// variant (the family's baseline when "") as the baseline of its own
// family, booted boots times, stored as experiment
// "noise:<experiment>" (noise.ExperimentPrefix) so that no nightly or
// diff takes it for an ordinary run. A variant the experiment does not
// measure is a usage error.
func NoiseSelection(cfg *config.Config, sel *variants.Selection, variant string, boots int) (*variants.Selection, error) {
	if variant == "" {
		variant = sel.Family.Baseline
	}
	one := sel.Variant(variant)
	if one == nil {
		return nil, usage.Wrap(fmt.Errorf("--variant %q is not measured by this experiment (it has: %s)", variant, strings.Join(sel.Family.VariantNames(), ", ")))
	}
	fam := *sel.Family
	fam.Baseline = one.Name
	cfg.Experiment, cfg.Repetitions = noise.ExperimentPrefix+cfg.Experiment, boots
	return &variants.Selection{Family: &fam, Variants: []*patches.Variant{one}}, nil
}

// Noise measures a NoiseSelection's boots into a new run and analyzes
// each metric's spread.
func (s *Session) Noise(ctx context.Context, cfg *config.Config, sel *variants.Selection) (format.NoiseRun, []noise.Metric, error) {
	id, _, err := s.Measure(ctx, cfg, sel, 0)
	if err != nil {
		return format.NoiseRun{}, nil, err
	}
	rs, err := s.Store.Results(ctx, id)
	if err != nil {
		return format.NoiseRun{}, nil, err
	}
	if err := enoughMeasured(id, rs); err != nil {
		return format.NoiseRun{}, nil, err
	}
	return format.NoiseRun{ID: id, Experiment: cfg.Experiment, Variant: sel.Family.Baseline, Cells: len(rs)}, noise.Analyze(rs), nil
}

// minNoiseBoots is the fewest ok boots a spread between boots is read
// from: one boot has none.
const minNoiseBoots = 2

// UnmeasuredError: a noise run whose boots did not measure enough to
// give any spread. It exits as a baseline that could not be measured
// (the variant noise boots is the experiment's baseline), never 0 with
// an empty table.
type UnmeasuredError struct {
	Run    int64
	OK     int
	NotOK  string // pipeline.NotOK's summary of the failed cells
	Needed int
}

func (e *UnmeasuredError) Error() string {
	return fmt.Sprintf("noise: run %d: %d ok boot(s), at least %d are needed for a spread (%s); each cell's error: kregress results show %d",
		e.Run, e.OK, e.Needed, e.NotOK, e.Run)
}

// ExitStatus implements verdict's known exit status.
func (e *UnmeasuredError) ExitStatus() verdict.Exit { return verdict.ExitBaselineFailed }

// enoughMeasured is nil when at least minNoiseBoots of rs are ok.
func enoughMeasured(run int64, rs []*results.Result) error {
	ok := 0
	for _, r := range rs {
		if r.Status.OK() {
			ok++
		}
	}
	if ok >= minNoiseBoots {
		return nil
	}
	notOK := pipeline.NotOK(rs, len(rs))
	if notOK == "" {
		notOK = "no cell stored"
	}
	return &UnmeasuredError{Run: run, OK: ok, NotOK: notOK, Needed: minNoiseBoots}
}

// NoiseRun is kregress noise: one variant of the experiment booted over
// and over, each judged metric's spread printed. Its flags bind straight
// into it.
type NoiseRun struct {
	Variant string // --variant: the variant to boot ("": the baseline)
	// RepetitionsSet says the command line set --repetitions: they are
	// the boots, else NoiseBoots (NoiseBootsOf).
	RepetitionsSet bool
	JSON           bool // print the run and its metrics as JSON
}

// Run refuses an executor that would not wait for the cells
// (WaitsForCells) and boots out of range, resolves the experiment
// (env.Select) and narrows it to the one variant (NoiseSelection), then
// measures it into the store env.Open opens (Noise) and prints the run's
// spread on env.Out.
func (r NoiseRun) Run(ctx context.Context, cfg *config.Config, env Env) error {
	if err := WaitsForCells("noise", cfg); err != nil {
		return err
	}
	boots, err := NoiseBootsOf(cfg, r.RepetitionsSet)
	if err != nil {
		return err
	}
	sel, err := env.Select(cfg)
	if err != nil {
		return err
	}
	if sel, err = NoiseSelection(cfg, sel, r.Variant, boots); err != nil {
		return err
	}
	store, err := env.Open(ctx, cfg.StoreSpec())
	if err != nil {
		return err
	}
	defer store.Close()
	run, ms, err := (&Session{Store: store, Report: env.Report}).Noise(ctx, cfg, sel)
	if err != nil {
		return err
	}
	if r.JSON {
		return format.WriteNoiseJSON(env.Out.W, run, ms)
	}
	format.WriteNoiseRun(env.Out.W, run, ms)
	return nil
}
