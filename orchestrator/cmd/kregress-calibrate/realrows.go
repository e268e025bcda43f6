package main

// The real-boots counterparts of rows that drew only parametric noise:
// the nights through Night.Run, the power behind the change run and diff
// state, and the udelay case. Each keeps its row's product code path and
// goal; its boots are resampled whole from the real data set's cells
// (realdata.go), its change applied as a factor, every metric judged
// under its real name and direction, the primary as run and diff find it
// (workload.AnyPrimary).

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/rstat"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/noise"
	"github.com/kregress/kregress/results/verdict"
)

func init() {
	scenarios = append(scenarios,
		Scenario{Name: "nightrun-real-boots", Run: func(trials int, seed int64) []Row { return nightRunRowsOn(trials, seed, false, true) }},
		Scenario{Name: "nightrun-shifts-real-boots", Run: func(trials int, seed int64) []Row { return nightShiftRowsOn(trials, seed, true) }},
		Scenario{Name: mutationPrefix + "-nightrun-real-boots", Run: func(trials int, seed int64) []Row { return nightRunRowsOn(trials, seed, true, true) }},
		Scenario{Name: "verdict-power-real-boots", Run: verdictPowerReal},
		Scenario{Name: "verdict-udelay-real-boots", Run: verdictUdelayReal},
		Scenario{Name: "verdict-null-real-boots", Run: verdictNullReal},
		Scenario{Name: "verdict-unjudged-real-boots", Run: verdictUnjudgedReal},
		Scenario{Name: "rule-out-real-boots", Run: func(trials int, seed int64) []Row { return ruleOutRowsOn(realModels(), 19000, trials, seed, false) }},
	)
}

// realResults is n ok cells of variant, each a boot resampled whole from
// cell, its first k judged metrics (the primary first), scale applied.
func realResults(rng *rand.Rand, cell *realCell, variant string, n, k int, scale map[string]float64) []*results.Result {
	if k > len(cell.Metrics) {
		must(errNames(cell, k))
	}
	rs := make([]*results.Result, 0, n)
	for i := 0; i < n; i++ {
		rs = append(rs, &results.Result{Variant: variant, Repetition: i + 1, Status: results.StatusOK, Metrics: cell.metrics(rng, scale)[:k]})
	}
	return rs
}

// realOpts are run's and diff's options on stored real boots: alpha, the
// primary any workload names.
func realOpts() compare.Options {
	return compare.Options{Alpha: verdictAlpha, DefaultPrimary: workload.AnyPrimary()}
}

// metricOf is d's verdict line of metric name for variant v.
func metricOf(d *compare.Diff, v, name string) (compare.Metric, bool) {
	for _, m := range d.Metrics[v] {
		if m.Name == name {
			return m, true
		}
	}
	return compare.Metric{}, false
}

// verdictPowerReal is verdictPower on each of mdeRealCells: the change
// noise states for the cell's primary (its CV as noise.Analyze reads the
// cell), one metric, n = 8; and the change the diff's power line states
// for the primary of 9 from a null run of the cell, then a run with that
// change. Both sides resample the same cell; the goal is verdictPower's.
func verdictPowerReal(trials int, seed int64) []Row {
	const n = 8
	var rows []Row
	for ci, ev := range mdeRealCells {
		cell := realCellOf(ev[0], ev[1])
		primary := cell.Metrics[0]
		cv := primaryCV(cell)
		stated := noise.MDE(cv, n)
		worse := func(pct float64) map[string]float64 { return map[string]float64{primary: 1 + pct/100} }
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(1080+10*ci)))
		found := 0
		for t := 0; t < trials; t++ {
			rs := append(realResults(rng, cell, "base", n, 1, nil), realResults(rng, cell, "cand1", n, 1, worse(stated))...)
			d, err := compare.Compare(rs, "base", compare.Options{Alpha: verdictAlpha})
			must(err)
			if m, ok := metricOf(d, "cand1", primary); ok && m.Verdict == verdict.Regression {
				found++
			}
		}
		from := fmt.Sprintf("real boots resampled from %s/%s, its primary %s", cell.Experiment, cell.Variant, primary)
		rows = append(rows, Row{
			Scenario: fmt.Sprintf("power at noise's stated MDE (n=%d, one metric, %s: CV %.3f as noise.Analyze reads its %d boots, %.1f%%)", n, from, cv, len(cell.Boots), stated),
			Figure:   "found " + rate(found, trials),
			Goal:     "power >= 0.80",
			Met:      float64(found)/float64(trials) >= 0.8,
		})
		rng = rand.New(rand.NewPCG(uint64(seed), uint64(1081+10*ci)))
		found, counted, sum := 0, 0, 0.0
		for t := 0; t < trials; t++ {
			null := append(realResults(rng, cell, "base", n, 9, nil), realResults(rng, cell, "cand1", n, 9, nil)...)
			d, err := compare.Compare(null, "base", realOpts())
			must(err)
			m, ok := metricOf(d, "cand1", primary)
			if !ok || m.Verdict != verdict.NoChange || math.IsNaN(m.CouldSeePct) || math.IsInf(m.CouldSeePct, 0) {
				continue
			}
			counted++
			sum += m.CouldSeePct
			rs := append(realResults(rng, cell, "base", n, 9, nil), realResults(rng, cell, "cand1", n, 9, worse(m.CouldSeePct))...)
			d, err = compare.Compare(rs, "base", realOpts())
			must(err)
			if m, ok := metricOf(d, "cand1", primary); ok && m.Verdict == verdict.Regression {
				found++
			}
		}
		rows = append(rows, Row{
			Scenario: fmt.Sprintf("power at the diff's stated change (n=%d, the primary of 9 metrics, %s: mean %.1f%% over %d null runs that stated one)", n, from, sum/float64(max(counted, 1)), counted),
			Figure:   "found " + rate(found, max(counted, 1)),
			Goal:     "power >= 0.80",
			Met:      counted > 0 && float64(found)/float64(counted) >= 0.8,
		})
	}
	return rows
}

// verdictUdelayReal is verdictUdelay on real boots: 4+4 boots resampled
// from each of mdeRealCells, the rstat workload's primary x37 among the
// cell's first 11 judged metrics, judged with the primary run and diff
// find; it must be a regression as often as on the parametric model.
func verdictUdelayReal(trials int, seed int64) []Row {
	primary := rstat.Workload.Primary[0]
	var rows []Row
	for ci, ev := range mdeRealCells {
		cell := realCellOf(ev[0], ev[1])
		if cell.Metrics[0] != primary {
			must(fmt.Errorf("real cell %s/%s: its primary is %s, the udelay row changes %s", cell.Experiment, cell.Variant, cell.Metrics[0], primary))
		}
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(1037+10*ci)))
		flagged := 0
		for t := 0; t < trials; t++ {
			rs := append(realResults(rng, cell, "base", 4, 11, nil), realResults(rng, cell, "patched", 4, 11, map[string]float64{primary: 37})...)
			d, err := compare.Compare(rs, "base", realOpts())
			must(err)
			if m, ok := metricOf(d, "patched", primary); ok && m.Verdict == verdict.Regression {
				flagged++
			}
		}
		rows = append(rows, Row{
			Scenario: fmt.Sprintf("4+4 boots, %s x37 among 11 metrics (the udelay case), real boots resampled from %s/%s (%d boots)", primary, cell.Experiment, cell.Variant, len(cell.Boots)),
			Figure:   "regression in " + rate(flagged, trials),
			Goal:     "regression in >= 99%",
			Met:      float64(flagged)/float64(trials) >= 0.99,
		})
	}
	return rows
}

// verdictNullReal is verdictNull's rows that no other real row runs, on
// each cell of the default experiment (realModels), every variant's boots
// resampled from that one cell: a diff of two runs of 6 variants each
// against itself (compare.CompareFamily), and the nightly of 2 variants
// over its two looks (nightOutcome). Its goal is verdictNull's.
func verdictNullReal(trials int, seed int64) []Row {
	names := metricNames(9)
	se := math.Sqrt(verdictAlpha * (1 - verdictAlpha) / float64(trials))
	goal := fmt.Sprintf("false alarm <= %.2f (+2 s.e. %.4f)", verdictAlpha, 2*se)
	var rows []Row
	for mi, nm := range realModels() {
		for _, n := range []int{5, 8} {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(1200+10*mi+n)))
			two6, night, nightUnjudged := 0, 0, 0
			for t := 0; t < trials; t++ {
				var pairs [][]compare.Group
				for _, v := range variantNames(5) {
					pairs = append(pairs, []compare.Group{{Label: "a/" + v, Results: nm.cells(rng, v, n, names, nil)}, {Label: "b/" + v, Results: nm.cells(rng, v, n, names, nil)}})
				}
				ds, err := compare.CompareFamily(pairs, opts())
				must(err)
				if significant(ds...) {
					two6++
				}
				switch nightOutcome(rng, nm, n, names, nil, opts()) {
				case verdict.NightRegression:
					night++
				case verdict.NightUnjudged:
					nightUnjudged++
				}
			}
			rows = append(rows,
				Row{Scenario: fmt.Sprintf("null, 9 metrics, %s, n=%d: diff RUN_A RUN_B, 6 variants", nm.Name, n), Figure: "false alarm " + rate(two6, trials), Goal: goal, Met: float64(two6)/float64(trials) <= verdictAlpha+2*se},
				Row{Scenario: fmt.Sprintf("null, 9 metrics, %s, n=%d: nightly, 2 variants, 2 looks", nm.Name, n), Figure: fmt.Sprintf("false alarm %s (UNJUDGED %s)", rate(night, trials), rate(nightUnjudged, trials)), Goal: goal, Met: float64(night)/float64(trials) <= verdictAlpha+2*se})
		}
	}
	return rows
}

// verdictUnjudgedReal is verdictUnjudged on each cell of the default
// experiment: a nightly of 3 boots per variant resampled from it, the
// primary x10, must never pass.
func verdictUnjudgedReal(trials int, seed int64) []Row {
	var rows []Row
	for mi, nm := range realModels() {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(1300+mi)))
		pass, unjudged := 0, 0
		for t := 0; t < trials; t++ {
			switch nightOutcome(rng, nm, 3, metricNames(9), map[string]float64{"primary": 10}, opts()) {
			case verdict.NightPass:
				pass++
			case verdict.NightUnjudged:
				unjudged++
			}
		}
		rows = append(rows, Row{
			Scenario: "nightly, 3 boots per variant, primary metric x10, " + nm.Name,
			Figure:   fmt.Sprintf("pass %s, unjudged %s", rate(pass, trials), rate(unjudged, trials)),
			Goal:     "never pass (unjudged)",
			Met:      pass == 0 && unjudged == trials,
		})
	}
	return rows
}
