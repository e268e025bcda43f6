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
	return rows
}
