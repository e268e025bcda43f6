package session

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/verdict"
)

func TestNoiseBootsOf(t *testing.T) {
	cfg := &config.Config{Repetitions: 5}
	if got, err := NoiseBootsOf(cfg, false); err != nil || got != NoiseBoots {
		t.Errorf("repetitions not set: %d, %v; want noise's own %d (not the experiment's 5)", got, err, NoiseBoots)
	}
	cfg.Repetitions = 16
	if got, err := NoiseBootsOf(cfg, true); err != nil || got != 16 {
		t.Errorf("--repetitions 16: %d, %v", got, err)
	}
	for _, n := range []int{2, config.MaxRepetitions + 1} {
		cfg.Repetitions = n
		if _, err := NoiseBootsOf(cfg, true); !usage.Is(err) {
			t.Errorf("--repetitions %d: %v, want a usage error", n, err)
		}
	}
}

func TestNoiseSelection(t *testing.T) {
	stock, fast := &patches.Variant{Name: "stock"}, &patches.Variant{Name: "fast"}
	fam := &patches.Family{Name: "f", Baseline: "stock", Variants: map[string]*patches.Variant{"stock": stock, "fast": fast}}
	sel := &variants.Selection{Family: fam, Variants: []*patches.Variant{stock, fast}}
	cfg := &config.Config{Experiment: "e", Repetitions: 5}
	got, err := NoiseSelection(cfg, sel, "fast", 16)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Variants) != 1 || got.Variants[0] != fast || got.Family.Baseline != "fast" || fam.Baseline != "stock" {
		t.Errorf("--variant fast: variants %v, baseline %q (the experiment's family's now %q)", got.Variants, got.Family.Baseline, fam.Baseline)
	}
	if cfg.Experiment != "noise:e" || cfg.Repetitions != 16 {
		t.Errorf("stored as %q with %d repetitions, want noise:e with 16", cfg.Experiment, cfg.Repetitions)
	}
	if got, err := NoiseSelection(&config.Config{}, sel, "", 8); err != nil || got.Family.Baseline != "stock" {
		t.Errorf("no --variant: %v, %v; want the baseline", got, err)
	}
	if _, err := NoiseSelection(&config.Config{}, sel, "slow", 8); !usage.Is(err) || !strings.Contains(err.Error(), "it has: stock, fast") {
		t.Errorf("--variant slow: %v, want a usage error naming the variants", err)
	}
}

// NoiseRun refuses what it can before it resolves the experiment (an
// executor that leaves the cells, boots out of range) or opens the
// store (a variant the experiment does not measure), then measures the
// one variant, as experiment noise:<experiment>, into the store opened.
func TestNoiseRunChecksBeforeOpening(t *testing.T) {
	load := func() *config.Config {
		cfg, _, err := config.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	var selected int
	var openedSpec string
	opened := errors.New("opened")
	env := Env{
		Select: func(cfg *config.Config) (*variants.Selection, error) { selected++; return variants.Resolve(cfg) },
		Open:   func(_ context.Context, spec string) (results.Store, error) { openedSpec = spec; return nil, opened },
		Report: func(string, ...any) {}, Out: Output{W: io.Discard},
	}
	ctx := context.Background()
	cfg := load()
	cfg.Executor.Kind = "test-manifest" // waits_test.go
	if err := (NoiseRun{}).Run(ctx, cfg, env); !usage.Is(err) || !strings.HasPrefix(err.Error(), "noise judges") || selected != 0 {
		t.Errorf("test-manifest: %v, %d selections; want noise's usage error before resolving", err, selected)
	}
	cfg = load()
	cfg.Repetitions = 2
	if err := (NoiseRun{RepetitionsSet: true}).Run(ctx, cfg, env); !usage.Is(err) || selected != 0 {
		t.Errorf("--repetitions 2: %v, %d selections; want a usage error before resolving", err, selected)
	}
	if err := (NoiseRun{Variant: "nope"}).Run(ctx, load(), env); !usage.Is(err) || openedSpec != "" {
		t.Errorf("--variant nope: %v, store %q opened; want a usage error before opening", err, openedSpec)
	}
	cfg = load()
	experiment := cfg.Experiment
	if err := (NoiseRun{}).Run(ctx, cfg, env); !errors.Is(err, opened) || openedSpec != cfg.StoreSpec() {
		t.Fatalf("the baseline: %v, store %q opened; want %q", err, openedSpec, cfg.StoreSpec())
	}
	if cfg.Experiment != "noise:"+experiment || cfg.Repetitions != NoiseBoots {
		t.Errorf("measured as %q, %d boots; want noise:%s, %d", cfg.Experiment, cfg.Repetitions, experiment, NoiseBoots)
	}
}

// A noise run whose every boot failed has no spread to show: it must end
// as a baseline that could not be measured, naming the failed cells,
// never exit 0 with an empty table.
func TestNoiseWithoutOkBootsFails(t *testing.T) {
	failed := func(s results.Status) *results.Result { return &results.Result{Status: s} }
	ok := &results.Result{Status: results.StatusOK}
	for _, tc := range []struct {
		name string
		rs   []*results.Result
		fail bool
	}{
		{"every boot failed", []*results.Result{failed("agent_failed"), failed("agent_failed"), failed("agent_failed")}, true},
		{"one ok boot", []*results.Result{ok, failed("crashed"), failed("agent_failed")}, true},
		{"nothing stored", nil, true},
		{"two ok boots", []*results.Result{ok, ok, failed("crashed")}, false},
	} {
		err := enoughMeasured(7, tc.rs)
		if !tc.fail {
			if err != nil {
				t.Errorf("%s: %v, want nil", tc.name, err)
			}
			continue
		}
		var ue *UnmeasuredError
		if !errors.As(err, &ue) {
			t.Fatalf("%s: %v, want an *UnmeasuredError", tc.name, err)
		}
		if got := verdict.ExitOf(err); got != verdict.ExitBaselineFailed {
			t.Errorf("%s: exits %d, want %d", tc.name, got, verdict.ExitBaselineFailed)
		}
		if !strings.Contains(err.Error(), "results show 7") {
			t.Errorf("%s: %q does not say where the cells' errors are", tc.name, err)
		}
	}
	if err := enoughMeasured(7, []*results.Result{failed("agent_failed"), failed("agent_failed")}); !strings.Contains(err.Error(), "2 agent_failed") {
		t.Errorf("%q does not name the failed cells", err)
	}
}
