package main

// The false-alarm rows of compare on noise that is not the smooth
// log-normal of the verdict rows: real boots come quantised (ties, which
// a rank test must handle), with outlier boots (under TCG a cell's
// figures jump 2-3x now and then), and with a wider spread. Nothing
// changes between the variants; compare.Compare (what run and diff call)
// judges 9 metrics, the first primary.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

// bootModel draws one boot's figures: boot is the boot's own factor
// draw (an outlier boot moves every metric), value one metric's figure.
type bootModel struct {
	name  string
	value func(rng *rand.Rand, outlier bool) float64
	// outliers is the share of boots whose every figure is 3x.
	outliers float64
}

var bootModels = []bootModel{
	{name: "quantised (ties: integers around 10, CV 0.2)", value: func(rng *rand.Rand, _ bool) float64 {
		return math.Round(10 * math.Exp(0.2*rng.NormFloat64()))
	}},
	{name: "outlier boots (5% of boots at 3x, CV 0.05 otherwise)", outliers: 0.05, value: func(rng *rand.Rand, out bool) float64 {
		x := 1000 * math.Exp(0.05*rng.NormFloat64())
		if out {
			x *= 3
		}
		return x
	}},
	{name: "log-normal sigma 0.3", value: func(rng *rand.Rand, _ bool) float64 {
		return 1000 * math.Exp(0.3*rng.NormFloat64())
	}},
}

// modelCells is n ok cells of variant, names' figures drawn from m.
func modelCells(rng *rand.Rand, m bootModel, variant string, n int, names []string) []*results.Result {
	var rs []*results.Result
	for i := 0; i < n; i++ {
		out := rng.Float64() < m.outliers
		r := &results.Result{Variant: variant, Repetition: i + 1, Status: results.StatusOK}
		for _, name := range names {
			r.Metrics = append(r.Metrics, agentproto.Metric{Name: name, Unit: "us", Direction: agentproto.LowerIsBetter, Value: m.value(rng, out)})
		}
		rs = append(rs, r)
	}
	return rs
}

// noiseModelRows: for each model, n = 5 and 8, a run of one candidate
// and a diff of 6 candidates. weak judges every metric alone at alpha
// (no false-discovery family, no alpha split) on the log-normal model,
// and returns only that mutation's row.
func noiseModelRows(trials int, seed int64, weak bool) []Row {
	names := metricNames(9)
	se := math.Sqrt(verdictAlpha * (1 - verdictAlpha) / float64(trials))
	goal := fmt.Sprintf("false alarm <= %.2f (+2 s.e. %.4f)", verdictAlpha, 2*se)
	met := func(hits int) bool { return float64(hits)/float64(trials) <= verdictAlpha+2*se }
	var rows []Row
	for mi, m := range bootModels {
		if weak && mi != len(bootModels)-1 {
			continue
		}
		for _, n := range []int{5, 8} {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(400+10*mi+n)))
			run, diff6 := 0, 0
			for t := 0; t < trials; t++ {
				rs := append(modelCells(rng, m, "base", n, names), modelCells(rng, m, "cand1", n, names)...)
				if weak {
					if anyAlone(rs, names) {
						run++
					}
					continue
				}
				d, err := compare.Compare(rs, "base", opts())
				must(err)
				if significant(d) {
					run++
				}
				rs = nil
				for _, v := range variantNames(6) {
					rs = append(rs, modelCells(rng, m, v, n, names)...)
				}
				d, err = compare.Compare(rs, "base", opts())
				must(err)
				if significant(d) {
					diff6++
				}
			}
			r := Row{Scenario: fmt.Sprintf("null, 9 metrics, %s, n=%d: run, 1 candidate", m.name, n), Figure: "false alarm " + rate(run, trials), Goal: goal, Met: met(run)}
			if weak {
				rows = append(rows, mutant("every metric judged alone at alpha: no FDR, no alpha split", r))
				continue
			}
			rows = append(rows, r, Row{Scenario: fmt.Sprintf("null, 9 metrics, %s, n=%d: diff RUN, 6 candidates", m.name, n), Figure: "false alarm " + rate(diff6, trials), Goal: goal, Met: met(diff6)})
		}
	}
	return rows
}

// anyAlone judges each metric of rs as its own comparison (the product's
// test, one metric, at alpha): the rule without a family.
func anyAlone(rs []*results.Result, names []string) bool {
	for i := range names {
		one := make([]*results.Result, len(rs))
		for j, r := range rs {
			c := *r
			c.Metrics = []agentproto.Metric{r.Metrics[i]}
			one[j] = &c
		}
		d, err := compare.Compare(one, "base", compare.Options{Alpha: verdictAlpha})
		must(err)
		if significant(d) {
			return true
		}
	}
	return false
}
