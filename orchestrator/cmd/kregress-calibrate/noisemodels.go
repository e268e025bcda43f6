package main

// The false-alarm rows of compare on noise that is not the smooth
// log-normal of the verdict rows: real boots come quantised (ties, which
// a rank test must handle), with outlier boots (a cell the host
// starved, outlierFactor), and with a wider spread. Nothing
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

// nullModels are the false-alarm rows' noise models: the parametric
// ones (each boot draws its outlier flag before its figures), then each
// cell of the real data set's default experiment.
var nullModels = append(parametricNull(), realModels()...)

// parametricNull are the parametric models of the false-alarm and
// change-point rows, the log-normal last (the mutation rows run on it).
func parametricNull() []noiseModel {
	return []noiseModel{
		{Name: "quantised (ties: integers around 10, CV 0.2)", Sigma: 0.2, Center: 10, Ties: true, FlagFirst: true},
		{Name: "outlier boots (5% of boots at 3x, CV 0.05 otherwise)", Sigma: 0.05, Outliers: 0.05, FlagFirst: true},
		{Name: "log-normal sigma 0.3", Sigma: 0.3, FlagFirst: true},
	}
}

// realModels resample each cell (variant) of the default experiment's
// real boots: the baseline's and the candidate's noise differ in shape.
func realModels() []noiseModel {
	var out []noiseModel
	for _, c := range realCells {
		if c.Experiment == realExperiment {
			out = append(out, resampled(c))
		}
	}
	return out
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
	for mi, m := range nullModels {
		if weak && mi != len(parametricNull())-1 {
			continue
		}
		for _, n := range []int{5, 8} {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(400+10*mi+n)))
			run, diff6 := 0, 0
			for t := 0; t < trials; t++ {
				rs := append(m.cells(rng, "base", n, names, nil), m.cells(rng, "cand1", n, names, nil)...)
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
					rs = append(rs, m.cells(rng, v, n, names, nil)...)
				}
				d, err = compare.Compare(rs, "base", opts())
				must(err)
				if significant(d) {
					diff6++
				}
			}
			r := Row{Scenario: fmt.Sprintf("null, 9 metrics, %s, n=%d: run, 1 candidate", m.Name, n), Figure: "false alarm " + rate(run, trials), Goal: goal, Met: met(run)}
			if weak {
				rows = append(rows, mutant("every metric judged alone at alpha: no FDR, no alpha split", r))
				continue
			}
			rows = append(rows, r, Row{Scenario: fmt.Sprintf("null, 9 metrics, %s, n=%d: diff RUN, 6 candidates", m.Name, n), Figure: "false alarm " + rate(diff6, trials), Goal: goal, Met: met(diff6)})
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
