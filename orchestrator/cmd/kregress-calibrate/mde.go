package main

// noise's MDE as a user reads it: `kregress noise` states, for a metric's
// CV and n boots per side, the smallest change found with 80% power. The
// built-in workloads each have a primary metric among several, and a run
// judges it at the primary family's share of alpha, so the row measures
// that: 9 metrics, the primary moved by the stated change, compare.Compare.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/noise"
	"github.com/kregress/kregress/results/verdict"
)

// mdeRows: for n = 5, 8, 16 and CV 0.03, the power at noise.MDE. weak
// states the change computed at 0.05, as for a metric judged alone (no
// alpha split), and returns only its row at n = 8: at 5+5 the U test
// reaches the same p-values below 0.04 as below 0.05, so the split
// changes nothing, and at 16+16 the margin MDE keeps over 0.8 (its own
// simulation's error) absorbs the difference.
func mdeRows(trials int, seed int64, weak bool) []Row {
	const cv = 0.03
	names := metricNames(9)
	var rows []Row
	for _, n := range []int{5, 8, 16} {
		stated := noise.MDE(cv, n)
		what := "noise.MDE"
		if weak {
			if n != 8 {
				continue
			}
			stated = compare.MDE(compare.PowerSpec{N1: n, N2: n, Sigma: math.Sqrt(math.Log1p(cv * cv)), Log: true, Family: 1, Alpha: verdictAlpha, Seed: 1})
			what = "the change at alpha 0.05"
		}
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(500+n)))
		found := 0
		for t := 0; t < trials; t++ {
			rs := append(cells(rng, "base", n, names, cv, nil), cells(rng, "cand1", n, names, cv, map[string]float64{"primary": 1 + stated/100})...)
			d, err := compare.Compare(rs, "base", opts())
			must(err)
			if d.Metrics["cand1"][0].Verdict == verdict.Regression {
				found++
			}
		}
		r := Row{
			Scenario: fmt.Sprintf("power at %s (n=%d, CV %.2f, the primary of 9 metrics: %.2f%%)", what, n, cv, stated),
			Figure:   "found " + rate(found, trials),
			Goal:     "power >= 0.80",
			Met:      float64(found)/float64(trials) >= 0.8,
		}
		if weak {
			r = mutant("noise's MDE without the alpha split", r)
		}
		rows = append(rows, r)
	}
	return append(rows, mdeRealRows(trials, seed, weak)...)
}

// zMDE is the change the asymptotic z formula states, which noise's
// simulation of the diff's test replaces: the t-test's asymptotic (z_0.975 + z_0.8) sqrt(2/n) cv, widened by the
// U test's efficiency on normal data (3/pi), in percent.
func zMDE(cv float64, n int) float64 {
	const zSum = 1.959964 + 0.841621
	return zSum * math.Sqrt(2/float64(n)) * cv / math.Sqrt(3/math.Pi) * 100
}

// mdeRealCells are the real cells the MDE rows resample: both variants
// of the default experiment (host clock) and the icount baseline.
var mdeRealCells = [][2]string{{realExperiment, realBaseline}, {realExperiment, "per-cpu-relock"}, {"rstat-relock-icount", "stock"}}

// mdeRealRows: what `kregress noise` states for a real cell's primary
// (noise.Analyze over its boots, then its MDE at n = 5, 8, 16), and the
// power at that change with both sides' boots resampled from the cell,
// the candidate's primary times 1 + MDE, 9 metrics. weak states the
// change of the asymptotic z formula (zMDE), at n = 8 only, on the
// host-clock cells: on real boots the stated MDE keeps more margin than
// the alpha split takes (the change at 0.05 alone still finds 80% on the
// baseline's boots), and on the icount cell's 7 boots, nearly tied, even
// the z formula's smaller change is found more than 80% of the time.
func mdeRealRows(trials int, seed int64, weak bool) []Row {
	names := metricNames(9)
	var rows []Row
	for ci, ev := range mdeRealCells {
		if weak && ev[0] != realExperiment {
			continue
		}
		cell := realCellOf(ev[0], ev[1])
		m := resampled(cell)
		cv := primaryCV(cell)
		for _, n := range noise.Sizes {
			stated := noise.MDE(cv, n)
			what := "noise.MDE"
			if weak {
				if n != 8 {
					continue
				}
				stated = zMDE(cv, n)
				what = "the asymptotic z formula noise stated before"
			}
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(520+100*ci+n)))
			found := 0
			for t := 0; t < trials; t++ {
				rs := append(m.cells(rng, "base", n, names, nil), m.cells(rng, "cand1", n, names, map[string]float64{"primary": 1 + stated/100})...)
				d, err := compare.Compare(rs, "base", opts())
				must(err)
				if d.Metrics["cand1"][0].Verdict == verdict.Regression {
					found++
				}
			}
			r := Row{
				Scenario: fmt.Sprintf("power at %s (n=%d, the primary of 9 metrics, real boots resampled from %s/%s, its primary %s: CV %.3f as noise.Analyze reads its %d boots, %.2f%%)", what, n, cell.Experiment, cell.Variant, cell.Metrics[0], cv, len(cell.Boots), stated),
				Figure:   "found " + rate(found, trials),
				Goal:     "power >= 0.80",
				Met:      float64(found)/float64(trials) >= 0.8,
			}
			if weak {
				r = mutant("noise's MDE by the asymptotic z formula", r)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// primaryCV is the CV `kregress noise` reads for cell's primary metric
// (noise.Analyze over its boots).
func primaryCV(cell *realCell) float64 {
	var rs []*results.Result
	for _, b := range cell.Boots {
		r := &results.Result{Variant: cell.Variant, Status: results.StatusOK}
		for k, name := range cell.Metrics {
			r.Metrics = append(r.Metrics, agentproto.Metric{Name: name, Unit: "us", Direction: agentproto.LowerIsBetter, Value: b[k]})
		}
		rs = append(rs, r)
	}
	for _, nm := range noise.Analyze(rs) {
		if nm.Name == cell.Metrics[0] {
			return nm.CV
		}
	}
	return math.NaN()
}
