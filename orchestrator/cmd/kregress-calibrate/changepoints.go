package main

// Change points: every night the nightly runs change-point detection over
// its history, one series per variant and judged metric (each night's
// median), through nightly.ShiftsOf. These rows measure how often a
// history in which nothing changed lists any shift, and the shift found
// with 80% power.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/internal/stats"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/results/changepoint"
)

const (
	cpNights  = 20 // nights of history
	cpSeries  = 18 // 2 variants x 9 judged metrics
	cpBoots   = 8  // boots a night, the median is the night's figure
	cpShiftAt = 10 // the night a shift happens
)

// nightMedian is the median of cpBoots boots drawn from m, times scale.
func nightMedian(rng *rand.Rand, m noiseModel, scale float64) float64 {
	xs := make([]float64, cpBoots)
	for i := range xs {
		xs[i] = m.value(rng) * scale
	}
	return stats.Median(xs)
}

// history is cpSeries series of cpNights night medians from m; series 0
// is times 1+shift from night cpShiftAt on.
func history(rng *rand.Rand, m noiseModel, shift float64) [][]float64 {
	out := make([][]float64, cpSeries)
	for s := range out {
		for n := 0; n < cpNights; n++ {
			scale := 1.0
			if s == 0 && n >= cpShiftAt {
				scale += shift
			}
			out[s] = append(out[s], nightMedian(rng, m, scale))
		}
	}
	return out
}

// realHistory is history on real boots: series v*9+k is metric k of the
// real data set's variant v (realModels: the default experiment's two
// variants), each night the median of cpBoots boots resampled whole
// from its cell; series 0 is times 1+shift from night cpShiftAt on.
func realHistory(rng *rand.Rand, shift float64) [][]float64 {
	ms := realModels()
	per := cpSeries / len(ms)
	out := make([][]float64, cpSeries)
	for n := 0; n < cpNights; n++ {
		for v, m := range ms {
			if len(m.Real.Metrics) < per {
				must(errNames(m.Real, per))
			}
			boots := make([][]float64, cpBoots)
			for i := range boots {
				boots[i] = m.Real.Boots[rng.IntN(len(m.Real.Boots))]
			}
			for k := 0; k < per; k++ {
				xs := make([]float64, cpBoots)
				for i, b := range boots {
					xs[i] = b[k]
				}
				x := stats.Median(xs)
				if v == 0 && k == 0 && n >= cpShiftAt {
					x *= 1 + shift
				}
				out[v*per+k] = append(out[v*per+k], x)
			}
		}
	}
	return out
}

// shiftsOf is the nightly's detection, or with weak every series alone at
// alpha (no budget), as it was.
func shiftsOf(series [][]float64, weak bool) [][]changepoint.Point {
	if !weak {
		return nightly.ShiftsOf(series)
	}
	out := make([][]changepoint.Point, len(series))
	for i, xs := range series {
		out[i] = changepoint.Detect(xs, changepoint.Options{})
	}
	return out
}

// foundAt: series 0 lists a shift at (or next to) cpShiftAt.
func foundAt(pts [][]changepoint.Point) bool {
	for _, p := range pts[0] {
		if p.Index >= cpShiftAt-1 && p.Index <= cpShiftAt+1 {
			return true
		}
	}
	return false
}

func anyShift(pts [][]changepoint.Point) bool {
	for _, ps := range pts {
		if len(ps) > 0 {
			return true
		}
	}
	return false
}

// nullNightsRow is a change-point row on null histories: listed of trials
// listed a shift; weak marks the mutation (no budget).
func nullNightsRow(scenario string, listed, trials int, goal string, se float64, weak bool) Row {
	r := Row{
		Scenario: scenario,
		Figure:   "nights listing any shift " + rate(listed, trials),
		Goal:     goal,
		Met:      float64(listed)/float64(trials) <= verdictAlpha+2*se,
	}
	if weak {
		r = mutant("change points without a budget: each series at alpha", r)
	}
	return r
}

func changepointRows(trials int, seed int64, weak bool) []Row {
	se := math.Sqrt(verdictAlpha * (1 - verdictAlpha) / float64(trials))
	goal := fmt.Sprintf("nights listing a shift <= %.2f (+2 s.e. %.4f)", verdictAlpha, 2*se)
	var rows []Row
	for mi, m := range parametricNull() {
		if weak && mi != len(parametricNull())-1 {
			continue
		}
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(700+mi)))
		listed := 0
		for t := 0; t < trials; t++ {
			if anyShift(shiftsOf(history(rng, m, 0), weak)) {
				listed++
			}
		}
		rows = append(rows, nullNightsRow(fmt.Sprintf("nightly change points, nothing changed, %d nights x %d series (2 variants x 9 metrics), a night the median of %d boots %s", cpNights, cpSeries, cpBoots, m.Name), listed, trials, goal, se, weak))
	}
	// The same on real boots: each variant's series resampled from its
	// own cell, whole boots a night, so a night's metrics keep their
	// correlation and each series its own tails and ties.
	rng := rand.New(rand.NewPCG(uint64(seed), 705))
	listed := 0
	for t := 0; t < trials; t++ {
		if anyShift(shiftsOf(realHistory(rng, 0), weak)) {
			listed++
		}
	}
	rows = append(rows, nullNightsRow(fmt.Sprintf("nightly change points, nothing changed, %d nights x %d series (%s's 2 variants x their first 9 metrics), a night the median of %d real boots resampled", cpNights, cpSeries, realExperiment, cpBoots), listed, trials, goal, se, weak))
	if weak {
		return rows
	}
	// The shift found with 80% power: the smallest on a grid whose
	// power on a quarter of the trials is at least 0.85, then measured
	// again on fresh trials; on the parametric model and on real boots
	// (series 0: the default experiment's baseline's primary).
	m := noiseModel{Name: "log-normal CV 0.03", Sigma: 0.03, FlagFirst: true}
	rows = append(rows, shiftPower(trials, seed, func(rng *rand.Rand, shift float64) [][]float64 { return history(rng, m, shift) },
		1, 8, 0.5, 710, 799, fmt.Sprintf("boots %s, a night the median of %d", m.Name, cpBoots)))
	real := realModels()[0].Real
	return append(rows, shiftPower(trials, seed, realHistory,
		2, 40, 2, 900, 999, fmt.Sprintf("%s/%s %s, a night the median of %d real boots resampled", real.Experiment, real.Variant, real.Metrics[0], cpBoots)))
}

// shiftPower is the row of the shift found with 80% power on the
// histories gen draws: the smallest shift on the grid lo..hi (in
// percent) whose power on a quarter of the trials is at least 0.85 (PCG
// stream grid+10*pct), measured again on fresh trials (stream final).
func shiftPower(trials int, seed int64, gen func(*rand.Rand, float64) [][]float64, lo, hi, by float64, grid, final uint64, what string) Row {
	power := func(shift float64, n int, stream uint64) int {
		rng := rand.New(rand.NewPCG(uint64(seed), stream))
		found := 0
		for t := 0; t < n; t++ {
			if foundAt(shiftsOf(gen(rng, shift), false)) {
				found++
			}
		}
		return found
	}
	stated := math.NaN()
	for pct := lo; pct <= hi; pct += by {
		if n := trials / 4; float64(power(pct/100, n, grid+uint64(pct*10)))/float64(n) >= 0.85 {
			stated = pct
			break
		}
	}
	if math.IsNaN(stated) {
		return Row{Scenario: "nightly change points: the shift found with 80% power (" + what + ")", Figure: fmt.Sprintf("none up to %g%%", hi), Goal: "power >= 0.80", Met: false}
	}
	found := power(stated/100, trials, final)
	return Row{
		Scenario: fmt.Sprintf("nightly change points, one series shifted by %.1f%% at night %d of %d among %d (%s)", stated, cpShiftAt, cpNights, cpSeries, what),
		Figure:   "found at the night (+-1) in " + rate(found, trials),
		Goal:     "power >= 0.80",
		Met:      float64(found)/float64(trials) >= 0.8,
	}
}
