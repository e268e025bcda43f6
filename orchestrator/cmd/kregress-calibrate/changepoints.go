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
		r := Row{
			Scenario: fmt.Sprintf("nightly change points, nothing changed, %d nights x %d series (2 variants x 9 metrics), a night the median of %d boots %s", cpNights, cpSeries, cpBoots, m.Name),
			Figure:   "nights listing any shift " + rate(listed, trials),
			Goal:     goal,
			Met:      float64(listed)/float64(trials) <= verdictAlpha+2*se,
		}
		if weak {
			r = mutant("change points without a budget: each series at alpha", r)
		}
		rows = append(rows, r)
	}
	if weak {
		return rows
	}
	// The shift found with 80% power: the smallest on a grid whose
	// power on a quarter of the trials is at least 0.85, then measured
	// again on fresh trials.
	m := noiseModel{Name: "log-normal CV 0.03", Sigma: 0.03, FlagFirst: true}
	power := func(shift float64, n int, stream uint64) int {
		rng := rand.New(rand.NewPCG(uint64(seed), stream))
		found := 0
		for t := 0; t < n; t++ {
			if foundAt(shiftsOf(history(rng, m, shift), false)) {
				found++
			}
		}
		return found
	}
	stated := math.NaN()
	for pct := 1.0; pct <= 8; pct += 0.5 {
		if n := trials / 4; float64(power(pct/100, n, 710+uint64(pct*10)))/float64(n) >= 0.85 {
			stated = pct
			break
		}
	}
	if math.IsNaN(stated) {
		return append(rows, Row{Scenario: "nightly change points: the shift found with 80% power", Figure: "none up to 8%", Goal: "power >= 0.80", Met: false})
	}
	found := power(stated/100, trials, 799)
	return append(rows, Row{
		Scenario: fmt.Sprintf("nightly change points, one series shifted by %.1f%% at night %d of %d among %d (boots %s, a night the median of %d)", stated, cpShiftAt, cpNights, cpSeries, m.Name, cpBoots),
		Figure:   "found at the night (+-1) in " + rate(found, trials),
		Goal:     "power >= 0.80",
		Met:      float64(found)/float64(trials) >= 0.8,
	})
}
