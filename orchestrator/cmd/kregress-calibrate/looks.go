package main

// The rows of misses in secondary metrics: a change of 1.5x, 2x or 3x in
// one secondary metric, the primary unchanged, must be flagged or UNJUDGED
// (never "no significant change") by run at its defaults (its looks taken
// through judging.Looks.Take, the loop run takes them through), by a
// nightly (nightly.Judge and its grey-zone look) and by a diff of two
// stored 5-boot sets (no boots to add); while a null comparison keeps its
// false-alarm goal and is seldom made UNJUDGED.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// runDefaults are kregress run's: 5 repetitions, one extra round while
// unsure, grey zone below q 0.2, alpha 0.05 split over the looks.
var runDefaults = struct {
	Reps  int
	Looks judging.Looks
}{5, judging.Looks{Alpha: verdictAlpha, Extra: 1, GreyUpper: 0.2}}

// noiseModels are the noise the rows of misses and of null runs are
// drawn from (every figure first, then the outlier flags).
var noiseModels = []noiseModel{
	lognormal("lognormal CV 0.2", 0.2),
	{Name: "lognormal CV 0.2, 5% outlier boots at 3x", Sigma: lognormal("", 0.2).Sigma, Outliers: 0.05},
	lognormal("lognormal sigma 0.3", math.Sqrt(math.Exp(0.09)-1)),
	{Name: "quantised (ties: integers around 10, CV 0.2)", Sigma: 0.2, Center: 10, Ties: true},
	resampled(realCellOf(realExperiment, realBaseline)),
}

// runLooks is one simulated kregress run at its defaults, a baseline and
// one candidate of 11 metrics (the first primary), the candidate's
// metrics times scale: its gate verdict and the boots per side it took.
func runLooks(rng *rand.Rand, nm noiseModel, scale map[string]float64, o compare.Options) (verdict.Comparison, int) {
	names := metricNames(11)
	reps := runDefaults.Reps
	rs := append(nm.cells(rng, "base", reps, names, nil), nm.cells(rng, "cand1", reps, names, scale)...)
	o.Alpha = runDefaults.Looks.Each()
	o.Miss = runDefaults.Looks.Miss()
	boots := reps
	d, _, err := runDefaults.Looks.Take(
		func() (*compare.Diff, error) { return compare.Compare(rs, "base", o) },
		func(int, []string) error {
			rs = append(rs, nm.cells(rng, "base", reps, names, nil)...)
			rs = append(rs, nm.cells(rng, "cand1", reps, names, scale)...)
			boots += reps
			return nil
		})
	must(err)
	return compare.Judge(d), boots
}

// caught: a comparison that is flagged, or UNJUDGED (exit 9): not passed.
func caught(v verdict.Comparison) bool {
	return v == verdict.ComparisonRegression || v == verdict.ComparisonUnjudged
}

// nightCaught is caught of a night.
func nightCaught(v verdict.Night) bool {
	return v == verdict.NightRegression || v == verdict.NightUnjudged
}

// lookTrials caps the trials of the looks' rows: each simulates whole runs
// of 11 metrics over up to two looks, in 27 cells of noise x change x
// mode; 500 trials put a 99% goal within half a point.
const lookTrials = 500

// verdictMiss: one secondary metric 1.5x, 2x, 3x worse, the primary flat.
func verdictMiss(trials int, seed int64) []Row {
	trials = min(trials, lookTrials)
	missSE := math.Sqrt(0.01 * 0.99 / float64(trials))
	// m3 is declared gating (gating_metrics): these rows calibrate the
	// margin a pass must rule out, which a watched metric is spared.
	gating := gatingOpts(metricNames(11))
	var rows []Row
	for mi, nm := range noiseModels {
		for _, x := range []float64{1.5, 2, 3} {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(100*mi)+uint64(10*x)))
			scale := map[string]float64{"m3": x}
			run, night, diff, boots := 0, 0, 0, 0
			for t := 0; t < trials; t++ {
				v, b := runLooks(rng, nm, scale, gating)
				boots += b
				if caught(v) {
					run++
				}
				if nightCaught(nightOutcome(rng, nm, 5, metricNames(11), scale, gating)) {
					night++
				}
				// diff of two stored 5-boot sets: no boots to add.
				d, err := compare.CompareGroups([]compare.Group{
					{Label: "a", Results: nm.cells(rng, "x", 5, metricNames(11), nil)},
					{Label: "b", Results: nm.cells(rng, "x", 5, metricNames(11), scale)},
				}, gating)
				must(err)
				if caught(compare.Judge(d)) {
					diff++
				}
			}
			for _, r := range []struct {
				what string
				hits int
			}{{fmt.Sprintf("run at its defaults (mean %.1f boots per side)", float64(boots)/float64(trials)), run}, {"nightly, 5 boots, 2 looks", night}, {"diff of two stored 5-boot sets", diff}} {
				rows = append(rows, Row{
					Scenario: fmt.Sprintf("one gating secondary metric of 10 x%g, primary flat, %s: %s", x, nm.Name, r.what),
					Figure:   "flagged or UNJUDGED " + rate(r.hits, trials),
					Goal:     fmt.Sprintf(">= 99%% (-2 s.e. %.4f)", 2*missSE),
					Met:      float64(r.hits)/float64(trials) >= 0.99-2*missSE,
				})
			}
		}
	}
	return rows
}

// verdictRunNull: nothing changed, run at its defaults: flagged at most
// alpha of the time over its looks; how often it ends UNJUDGED, and the
// boots it takes. UNJUDGED is not a false alarm but it fails a gate
// (exit 9) and keeps a night from being good: the goal keeps it to one
// comparison in ten.
func verdictRunNull(trials int, seed int64) []Row {
	trials = min(trials, lookTrials)
	var rows []Row
	se := math.Sqrt(verdictAlpha * (1 - verdictAlpha) / float64(trials))
	for mi, nm := range noiseModels {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(7000+mi)))
		flagged, unjudged, boots, nightUnjudged, diffUnjudged := 0, 0, 0, 0, 0
		for t := 0; t < trials; t++ {
			v, b := runLooks(rng, nm, nil, opts())
			boots += b
			switch v {
			case verdict.ComparisonRegression:
				flagged++
			case verdict.ComparisonUnjudged:
				unjudged++
			}
			if nightOutcome(rng, nm, 5, metricNames(11), nil, opts()) == verdict.NightUnjudged {
				nightUnjudged++
			}
			d, err := compare.CompareGroups([]compare.Group{
				{Label: "a", Results: nm.cells(rng, "x", 5, metricNames(11), nil)},
				{Label: "b", Results: nm.cells(rng, "x", 5, metricNames(11), nil)},
			}, opts())
			must(err)
			if compare.Judge(d) == verdict.ComparisonUnjudged {
				diffUnjudged++
			}
		}
		// UNJUDGED on a null comparison is no false alarm: it says the
		// boots could not rule out a regression of the margin, which
		// with this noise they cannot at 5 boots. The figure is shown;
		// passRow below states the boots that can.
		for _, r := range []struct {
			what string
			hits int
		}{{"nightly, 5 boots, 2 looks", nightUnjudged}, {"diff of two stored 5-boot sets", diffUnjudged}} {
			rows = append(rows, Row{
				Scenario: fmt.Sprintf("null, 11 metrics, %s: %s", nm.Name, r.what),
				Figure:   "UNJUDGED " + rate(r.hits, trials),
				Goal:     "figure (no goal)",
				Met:      true,
			})
		}
		rows = append(rows, Row{
			Scenario: fmt.Sprintf("null, 11 metrics, %s: run at its defaults (mean %.1f boots per side)", nm.Name, float64(boots)/float64(trials)),
			Figure:   "false alarm " + rate(flagged, trials),
			Goal:     fmt.Sprintf("false alarm <= %.2f (+2 s.e. %.4f)", verdictAlpha, 2*se),
			Met:      float64(flagged)/float64(trials) <= verdictAlpha+2*se,
		}, Row{
			Scenario: fmt.Sprintf("null, 11 metrics, %s: run at its defaults", nm.Name),
			Figure:   "UNJUDGED " + rate(unjudged, trials),
			Goal:     "figure (no goal)",
			Met:      true,
		}, passRow(rng, nm, trials))
	}
	return rows
}

// passRow: the boots per side at which a null comparison of 11 metrics
// with nm's noise passes (neither flagged nor UNJUDGED) 9 times in 10,
// one look, at the default margin: the cost in boots of ruling out a
// 1.5x regression in every metric, which docs/verdict.md quotes.
func passRow(rng *rand.Rand, nm noiseModel, trials int) Row {
	trials = min(trials, 200)
	steps := []int{5, 8, 10, 12, 15, 20, 25, 30, 40}
	figure := fmt.Sprintf("more than %d", steps[len(steps)-1])
	for _, n := range steps {
		passed := 0
		for t := 0; t < trials; t++ {
			d, err := compare.CompareGroups([]compare.Group{
				{Label: "a", Results: nm.cells(rng, "x", n, metricNames(11), nil)},
				{Label: "b", Results: nm.cells(rng, "x", n, metricNames(11), nil)},
			}, opts())
			must(err)
			if compare.Judge(d) == verdict.ComparisonPass {
				passed++
			}
		}
		if float64(passed)/float64(trials) >= 0.9 {
			figure = fmt.Sprintf("%d boots per side (passed %s)", n, rate(passed, trials))
			break
		}
	}
	return Row{
		Scenario: fmt.Sprintf("null, 11 metrics, %s: boots per side at which one look passes 9 in 10 (rule out 1.5x at miss 0.01)", nm.Name),
		Figure:   figure,
		Goal:     "figure (no goal)",
		Met:      true,
	}
}
