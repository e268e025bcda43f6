package main

// The bisect rows on real boots: the same 16-commit range and search
// (bisect.Run, default options), each boot's noise resampled from one
// metric of one cell of the real data set (its figures over their
// median: the tails, the ties and the skew as measured), the change
// applied as a factor from the culprit on. Where the real metric is as
// quiet as the bisect row's CV 0.05, the step is that row's 10% and the
// goals are the outlier row's; where it is wider, the 10% step has the
// lognormal row's goal (no wrong commit), and a step as many robust
// spreads wide as the bisect row's (10% is 2 CVs) has the outlier row's.

import (
	"fmt"
	"math"
	"slices"

	"github.com/kregress/kregress/internal/stats"
)

// realFactors are metric's figures in cell over their median, and the
// robust spread of their logarithms (1.4826 median absolute deviations).
func realFactors(cell *realCell, metric string) ([]float64, float64, error) {
	k := slices.Index(cell.Metrics, metric)
	if k < 0 {
		return nil, 0, fmt.Errorf("real cell %s/%s has no metric %s", cell.Experiment, cell.Variant, metric)
	}
	var xs []float64
	for _, b := range cell.Boots {
		if !(b[k] > 0) {
			return nil, 0, fmt.Errorf("real cell %s/%s: %s has a figure %v, a factor needs a positive one", cell.Experiment, cell.Variant, metric, b[k])
		}
		xs = append(xs, b[k])
	}
	med := stats.Median(xs)
	fs := make([]float64, len(xs))
	logs := make([]float64, len(xs))
	for i, x := range xs {
		fs[i] = x / med
		logs[i] = math.Log(fs[i])
	}
	dev := make([]float64, len(logs))
	lm := stats.Median(logs)
	for i, l := range logs {
		dev[i] = math.Abs(l - lm)
	}
	return fs, 1.4826 * stats.Median(dev), nil
}

// gaussSpreads is the bisect row's step in its noise's spreads (10% at
// CV 0.05).
const gaussSpreads = 2

func bisectRealRows(trials int, seed int64) []Row {
	var rows []Row
	for i, c := range []struct {
		experiment, variant, metric string
		// scaled: the step is gaussSpreads robust spreads, not 10%;
		// strict: the outlier row's goals (right, wrong, boots), else
		// the lognormal row's (wrong).
		scaled, strict bool
	}{
		{"rstat-relock-icount", "stock", "reads_per_sec", false, true},
		{"rstat-relock", "stock", "rstat_lock_hold_p50_us", false, false},
		{"rstat-relock", "stock", "reads_per_sec", false, false},
		{"rstat-relock", "stock", "rstat_lock_hold_p50_us", true, true},
		{"rstat-relock", "stock", "reads_per_sec", true, true},
	} {
		cell := realCellOf(c.experiment, c.variant)
		fs, spread, err := realFactors(cell, c.metric)
		step := 0.1
		if c.scaled {
			step = math.Expm1(gaussSpreads * spread)
		}
		s := fmt.Sprintf("bisect 16 commits, %.0f%% step, real boots resampled (%s/%s %s: %d boots, robust spread %.3f)", 100*step, c.experiment, c.variant, c.metric, len(fs), spread)
		if c.scaled {
			s += fmt.Sprintf(", the step %d spreads as in the CV 0.05 row", gaussSpreads)
		}
		if err != nil {
			rows = append(rows, Row{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"})
			continue
		}
		t, err := noiseTrials(s, noiseCase{resample: fs, step: step}, trials, seed, 20+uint64(i))
		if err != nil {
			rows = append(rows, Row{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"})
			continue
		}
		r := Row{Scenario: s, Figure: t.figure(), Goal: "wrong <= 2%", Met: t.rate(t.wrong) <= 0.02}
		if c.strict {
			r = strictRow(s, t, trials, seed)
		}
		rows = append(rows, r)
	}
	return rows
}

// bisectRealTwoRows: two changes in one range on real boots, with the
// two-change row's goals: never a third commit, and a bisect that names
// neither says there is more than one change. The steps are as in
// bisectRealRows' strict rows: 10% on the quiet icount figures, two
// robust spreads on the host clock's primary.
func bisectRealTwoRows(trials int, seed int64) []Row {
	var rows []Row
	for i, c := range []struct {
		experiment, variant, metric string
		scaled                      bool
	}{
		{"rstat-relock-icount", "stock", "reads_per_sec", false},
		{"rstat-relock", "stock", "rstat_lock_hold_p50_us", true},
	} {
		cell := realCellOf(c.experiment, c.variant)
		fs, spread, err := realFactors(cell, c.metric)
		step := 0.1
		if c.scaled {
			step = math.Expm1(gaussSpreads * spread)
		}
		s := fmt.Sprintf("bisect 16 commits, two %.0f%% steps in the range, real boots resampled (%s/%s %s: %d boots, robust spread %.3f)", 100*step, c.experiment, c.variant, c.metric, len(fs), spread)
		if err != nil {
			rows = append(rows, Row{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"})
			continue
		}
		t, err := noiseTrials(s, noiseCase{two: true, resample: fs, step: step}, trials, seed, 30+uint64(i))
		if err != nil {
			rows = append(rows, Row{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"})
			continue
		}
		rows = append(rows,
			Row{Scenario: s, Figure: fmt.Sprintf("one of the two named %s, a third commit %s, no commit named %s; %.1f boots on average", pct(t.right, t.trials), pct(t.wrong, t.trials), pct(t.ranged, t.trials), float64(t.boots)/float64(t.trials)),
				Goal: "a third commit <= 2%", Met: t.rate(t.wrong) <= 0.02},
			Row{Scenario: s + ": no commit named", Figure: fmt.Sprintf("says more than one change and gives the ranges in %s of them", pct(t.sayUnnamed, max(1, t.ranged))),
				Goal: ">= 90%", Met: float64(t.sayUnnamed) >= 0.9*float64(t.ranged)})
	}
	return rows
}
