package session

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

// budgetClock is a clock that moves only when the fake pipeline works.
type budgetClock struct{ t time.Time }

func (c *budgetClock) now() time.Time { return c.t }

// cellTime is each fake boot's wall time, buildTime the builds'.
const (
	cellTime  = 2 * time.Minute
	buildTime = 5 * time.Minute
)

// fakeMeasurer stores the default experiment's two variants, each boot
// cellTime long on clock, the primary metric's figures from primary
// (repetition 1-5, again from 6 on): every measurement leaves it unsure.
type fakeMeasurer struct {
	clock    *budgetClock
	metric   string
	extended []int
}

// primary: 5+5 boots whose Mann-Whitney two-sided p is 0.0317 (U = 2):
// significant at alpha 0.05, not at 0.025.
var primary = map[string][]float64{"stock": {10, 11, 12, 13, 14}, "per-cpu-relock": {12.5, 14.5, 15, 16, 17}}

func (f *fakeMeasurer) add(ctx context.Context, st results.Store, runID int64, from, to int) error {
	for rep := from + 1; rep <= to; rep++ {
		for i, v := range []string{"stock", "per-cpu-relock"} {
			start := f.clock.t
			f.clock.t = f.clock.t.Add(cellTime)
			r := &results.Result{RunID: runID, Variant: v, Repetition: rep, Seq: 2*(rep-1) + i + 1, Status: results.StatusOK,
				StartedAt: start, FinishedAt: f.clock.t,
				Metrics: []agentproto.Metric{{Name: f.metric, Unit: "us", Direction: agentproto.LowerIsBetter, Value: primary[v][(rep-1)%5]}}}
			if err := st.AddResult(ctx, r); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fakeMeasurer) Measure(ctx context.Context, cfg *config.Config, sel *variants.Selection, st results.Store, resume int64, _ progress.Reporter) (int64, *pipeline.Prepared, error) {
	f.clock.t = f.clock.t.Add(buildTime)
	run := &results.Run{Experiment: cfg.Experiment, Family: cfg.Family, Baseline: "stock", Variants: []string{"stock", "per-cpu-relock"},
		Status: results.RunRunning, StartedAt: f.clock.t, Config: cfg.YAML()}
	if err := st.CreateRun(ctx, run); err != nil {
		return 0, nil, err
	}
	if err := f.add(ctx, st, run.ID, 0, cfg.Repetitions); err != nil {
		return run.ID, nil, err
	}
	prep := &pipeline.Prepared{Variants: []pipeline.VariantBuild{{Name: "stock"}, {Name: "per-cpu-relock"}}}
	return run.ID, prep, st.FinishRun(ctx, run.ID, results.RunComplete, "")
}

func (f *fakeMeasurer) Extend(ctx context.Context, _ *config.Config, _ *pipeline.Prepared, st results.Store, runID int64, reps int, _ progress.Reporter) error {
	f.extended = append(f.extended, reps)
	have, err := st.Results(ctx, runID)
	if err != nil {
		return err
	}
	return f.add(ctx, st, runID, len(have)/2, reps)
}

// budgetRun is kregress run of the default experiment (5 repetitions, 2
// looks planned) with budget through a fake pipeline on a fake clock:
// what it printed, the further looks it measured, the options its diff
// was judged with and the verdict.
func budgetRun(t *testing.T, budget config.Looks) (string, []int, compare.Options, verdict.Comparison) {
	t.Helper()
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Debug.Pass, cfg.Looks = "off", budget
	sel, err := variants.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "k.db")
	st, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clock := &budgetClock{t: time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)}
	fm := &fakeMeasurer{clock: clock, metric: cfg.JudgedPrimary()[0]}
	var out bytes.Buffer
	var judged compare.Options
	var v verdict.Comparison
	show := func(ctx context.Context, st results.Store, id int64, opts compare.Options, w io.Writer) ([]*compare.Diff, error) {
		judged = opts
		d, err := Judge(ctx, st, id, opts)
		if err != nil {
			return nil, err
		}
		v = compare.Judge(d)
		fmt.Fprintf(w, "verdict %s\n", v)
		return []*compare.Diff{d}, nil
	}
	s := &Session{Store: st, Report: func(string, ...any) {}, Now: clock.now, Measurer: fm}
	looks := judging.Looks{Alpha: 0.05, Extra: 1, GreyUpper: 0.2}
	if _, err := s.Run(context.Background(), cfg, sel, looks, 0, Output{W: &out, Diff: show}); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(out.String(), path, "STORE"), fm.extended, judged, v
}

// The round whose estimate passes the budget is not measured, the
// output says so with the command that measures more, the looks taken
// are judged at alpha split over the planned looks (here a regression at
// 0.05 is not one at 0.025), and how the looks went is said.
func TestRunBudgetStopsTheRound(t *testing.T) {
	// 5 minutes of builds and 10 boots of 2 minutes: 25 minutes spent;
	// another round is ~20 minutes.
	for _, c := range []struct {
		name   string
		budget config.Looks
		says   string
	}{
		{"minutes", config.Looks{MaxMinutes: 44}, "budget: another round (~10 boots, ~20 min) would exceed --looks.max-minutes 44 (25 min spent): stopping at look 1 of 2; `kregress run --resume 1 --repetitions 10` measures more\n"},
		{"boots", config.Looks{MaxBoots: 19}, "budget: another round (~10 boots, ~20 min) would exceed --looks.max-boots 19 (10 spent): stopping at look 1 of 2; `kregress run --resume 1 --repetitions 10` measures more\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, extended, opts, v := budgetRun(t, c.budget)
			if len(extended) != 0 {
				t.Fatalf("measured the round the budget refused (to %v repetitions):\n%s", extended, out)
			}
			if !strings.Contains(out, c.says) {
				t.Errorf("output lacks %q:\n%s", c.says, out)
			}
			if want := "looks: 1 of 2 taken, stopped by the budget (looks.max_minutes, looks.max_boots); each judged at alpha 0.025 (split over the 2 planned)\n"; !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
			if opts.Alpha != 0.025 || v == verdict.ComparisonRegression {
				t.Fatalf("judged at alpha %g: %s; want 0.025 (the planned looks' split), not a regression", opts.Alpha, v)
			}
		})
	}
	// The data tell the two alphas apart: at the one look taken judged
	// as if it were the only one planned, it is a regression.
	cfg, _, _ := config.Load("", nil)
	st, _ := store.OpenSQLite(filepath.Join(t.TempDir(), "k.db"))
	defer st.Close()
	fm := &fakeMeasurer{clock: &budgetClock{}, metric: cfg.JudgedPrimary()[0]}
	id, _, err := fm.Measure(context.Background(), cfg, nil, st, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Judge(context.Background(), st, id, judging.Looks{Alpha: 0.05, GreyUpper: 0.2}.Options(cfg, judging.AnyWorkload))
	if err != nil || compare.Judge(d) != verdict.ComparisonRegression {
		t.Fatalf("one look at alpha 0.05: %v %v, want a regression", compare.Judge(d), err)
	}
}

// A budget that does not bind changes nothing but the line saying how
// the looks went; without one the output is as it always was.
func TestRunBudgetThatFits(t *testing.T) {
	plain, plainExt, _, plainV := budgetRun(t, config.Looks{})
	within, ext, _, v := budgetRun(t, config.Looks{MaxMinutes: 45, MaxBoots: 20})
	if len(plainExt) != 1 || len(ext) != 1 || ext[0] != 10 || v != plainV {
		t.Fatalf("extended %v and %v, verdicts %s and %s: want one round to 10 repetitions each, alike", plainExt, ext, plainV, v)
	}
	if strings.Contains(plain, "looks:") || strings.Contains(plain, "budget") {
		t.Errorf("without a budget the output speaks of one:\n%s", plain)
	}
	line := "looks: 2 of 2 taken, nothing left unsure; each judged at alpha 0.025 (split over the 2 planned)\n"
	if got := strings.Replace(within, line, "", 1); got != plain {
		t.Errorf("within a budget that fits:\n%s\nwant the output without one plus %q:\n%s", within, line, plain)
	}
}
