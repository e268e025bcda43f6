package main

// The rule-out rows: one metric of 11 truly 1.5x worse (the margin
// itself, where the rule is hardest), the rest unchanged: how often that
// one metric is passed as ruled out, neither called nor seen to change.
// The bound's error is Options.Miss (0.01) per comparison; other metrics
// that happen not to be ruled out must not be what catches it, so each
// row counts the changed metric alone. Whole-microsecond figures that
// can read 0 (irqs-off, lock holds under TCG) are a model of their own:
// a value of 0 has no ratio, and ties sit at the margin.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// ruleOutModels are the rule-out rows' noise: log-normal, one of them
// higher-is-better (the change divides), and whole units around a median
// of 2, so a boot can read 0 (and 1.5x lands between whole values).
var ruleOutModels = []noiseModel{
	lognormal("lognormal CV 0.2", 0.2),
	{Name: "lognormal CV 0.2, higher is better", Sigma: lognormal("", 0.2).Sigma, Higher: true},
	lognormal("lognormal CV 0.5", 0.5),
	{Name: "whole units, median 2, CV 0.5 (zeros and ties)", Sigma: lognormal("", 0.5).Sigma, Center: 2, Ties: true},
}

// passedUnseen: m, truly worse by the margin, was neither called a
// regression nor seen to change nor left not ruled out: the comparison
// would pass over it.
func passedUnseen(m compare.Metric) bool {
	return m.Verdict != verdict.Regression && !m.NotRuledOut && m.Seen == ""
}

// ruleOutRows: per model and boots per side, one look at Miss, the share
// of comparisons that pass over the changed metric. mutate: the bound at
// ten times its error (Miss 0.1), which must miss the goal; only at 5 and
// 10 boots, since at 20 a 1.5x change is mostly flagged by the test
// itself and the bound decides nothing.
func ruleOutRows(trials int, seed int64, mutate bool) []Row {
	return ruleOutRowsOn(ruleOutModels, 9000, trials, seed, mutate)
}

// ruleOutRowsOn is ruleOutRows on models, model mi at n boots drawing
// from PCG stream stream+100*mi+n.
func ruleOutRowsOn(models []noiseModel, stream uint64, trials int, seed int64, mutate bool) []Row {
	trials = min(trials, 2000)
	const miss = compare.DefaultMiss
	se := math.Sqrt(miss * (1 - miss) / float64(trials))
	names := metricNames(11)
	worse := map[string]float64{"m3": compare.DefaultRuleOut}
	var rows []Row
	for mi, model := range models {
		for _, n := range []int{5, 10, 20} {
			if mutate && n > 10 {
				continue
			}
			rng := rand.New(rand.NewPCG(uint64(seed), stream+uint64(100*mi+n)))
			o := gatingOpts(names)
			if mutate {
				o.Miss = 10 * miss
			}
			passed := 0
			for t := 0; t < trials; t++ {
				d, err := compare.CompareGroups([]compare.Group{
					{Label: "a", Results: model.cells(rng, "x", n, names, nil)},
					{Label: "b", Results: model.cells(rng, "x", n, names, worse)},
				}, o)
				must(err)
				for _, m := range d.Metrics[d.Variants[1].Name] {
					if m.Name == "m3" && passedUnseen(m) {
						passed++
					}
				}
			}
			r := Row{
				Scenario: fmt.Sprintf("rule out: one gating metric of 11 exactly 1.5x worse, %s, %d+%d, one look: the metric passed over (not called, not seen, ruled out)", model.Name, n, n),
				Figure:   "passed over " + rate(passed, trials),
				Goal:     fmt.Sprintf("<= %.2f (+2 s.e. %.4f)", miss, 2*se),
				Met:      float64(passed)/float64(trials) <= miss+2*se,
			}
			if mutate {
				r = mutant("the bound at miss 0.1", r)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func init() {
	scenarios = append(scenarios,
		Scenario{Name: "rule-out", Run: func(trials int, seed int64) []Row { return ruleOutRows(trials, seed, false) }},
		Scenario{Name: mutationPrefix + "-rule-out", Run: func(trials int, seed int64) []Row { return ruleOutRows(trials, seed, true) }},
	)
}
