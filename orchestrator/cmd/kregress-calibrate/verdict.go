package main

// The verdict rows: false alarms with nothing changed, the
// power behind the MDE the tool states, a 3-boot nightly, the udelay
// case. Every row drives the product's own code on simulated cells:
// compare.Compare (run and diff of a run), compare.CompareFamily (diff of
// two runs), nightly.Judge with the nightly's grey-zone second look,
// noise.MDE and the diff's power line.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/rstat"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/noise"
	"github.com/kregress/kregress/results/verdict"
)

const verdictAlpha = 0.05

// metricNames: the first is the primary one.
func metricNames(k int) []string {
	out := []string{"primary"}
	for i := 1; i < k; i++ {
		out = append(out, fmt.Sprintf("m%d", i))
	}
	return out
}

func variantNames(candidates int) []string {
	out := []string{"base"}
	for i := 1; i <= candidates; i++ {
		out = append(out, fmt.Sprintf("cand%d", i))
	}
	return out
}

// significant: any metric called a regression or an improvement.
func significant(ds ...*compare.Diff) bool {
	for _, d := range ds {
		for _, ms := range d.Metrics {
			for _, m := range ms {
				if m.Verdict == verdict.Regression || m.Verdict == verdict.Improvement {
					return true
				}
			}
		}
	}
	return false
}

func opts() compare.Options {
	return compare.Options{Alpha: verdictAlpha, DefaultPrimary: []string{"primary"}}
}

// gatingOpts is opts with every one of names gating: the rows that
// calibrate the rule-out margin ask it of the metric they change, which
// by default (a lower-is-better secondary) would be watched.
func gatingOpts(names []string) compare.Options {
	o := opts()
	o.Gating = names
	return o
}

func rate(hits, trials int) string {
	return fmt.Sprintf("%.2f%% (%d of %d)", 100*float64(hits)/float64(trials), hits, trials)
}

func must(err error) {
	if err != nil {
		fmt.Println("kregress-calibrate:", err)
		panic(err)
	}
}

// verdictNull: nothing changed, 9 metrics (the first primary, as every
// built-in workload has one): how often is anything called?
func verdictNull(trials int, seed int64) []Row {
	names := metricNames(9)
	var rows []Row
	// The rule's rate is at most alpha (BH per family, alpha split
	// between the two families); its estimate from trials runs has a
	// binomial standard error, so the row is met when the estimate is
	// not above alpha by more than two of them.
	se := math.Sqrt(verdictAlpha * (1 - verdictAlpha) / float64(trials))
	goal := fmt.Sprintf("false alarm <= %.2f (+2 s.e. %.4f)", verdictAlpha, 2*se)
	for _, n := range []int{5, 8} {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(n)))
		// run: one candidate (quick mode), compare.Compare.
		run, diff6, two6, night := 0, 0, 0, 0
		for t := 0; t < trials; t++ {
			var rs []*results.Result
			for _, v := range variantNames(1) {
				rs = append(rs, cells(rng, v, n, names, 0.2, nil)...)
			}
			d, err := compare.Compare(rs, "base", opts())
			must(err)
			if significant(d) {
				run++
			}
			// diff of one run with 6 candidates.
			rs = nil
			for _, v := range variantNames(6) {
				rs = append(rs, cells(rng, v, n, names, 0.2, nil)...)
			}
			d, err = compare.Compare(rs, "base", opts())
			must(err)
			if significant(d) {
				diff6++
			}
			// diff RUN_A RUN_B: 6 variants, each against itself.
			var pairs [][]compare.Group
			for _, v := range variantNames(5) {
				pairs = append(pairs, []compare.Group{{Label: "a/" + v, Results: cells(rng, v, n, names, 0.2, nil)}, {Label: "b/" + v, Results: cells(rng, v, n, names, 0.2, nil)}})
			}
			ds, err := compare.CompareFamily(pairs, opts())
			must(err)
			if significant(ds...) {
				two6++
			}
			// nightly: two variants against last night's, alpha over
			// two looks, the grey zone measured again.
			if nightOutcome(rng, lognormal("", 0.2), n, names, nil, opts()) == verdict.NightRegression {
				night++
			}
		}
		for _, r := range []struct {
			what string
			hits int
		}{{"run, 1 candidate", run}, {"diff RUN, 6 candidates", diff6}, {"diff RUN_A RUN_B, 6 variants", two6}, {"nightly, 2 variants, 2 looks", night}} {
			rows = append(rows, Row{
				Scenario: fmt.Sprintf("null, 9 metrics, n=%d: %s", n, r.what),
				Figure:   "false alarm " + rate(r.hits, trials),
				Goal:     goal,
				Met:      float64(r.hits)/float64(trials) <= verdictAlpha+2*se,
			})
		}
	}
	return rows
}

// nightOutcome is one simulated night of two variants (base, cand1),
// their boots drawn from nm, against a baseline night of n cells each,
// judged as Night.Run judges it: nightly.Judge at each look's alpha, its
// looks taken by judging.TakeLooks (the grey zone measured again: n more
// cells of every variant, pooled). scale multiplies tonight's metrics.
func nightOutcome(rng *rand.Rand, nm noiseModel, n int, names []string, scale map[string]float64, o compare.Options) verdict.Night {
	var base, tonight []*results.Result
	for _, v := range variantNames(1) {
		base = append(base, nm.cells(rng, v, n, names, nil)...)
		tonight = append(tonight, nm.cells(rng, v, n, names, scale)...)
	}
	o.Alpha, o.GreyUpper, o.Miss = nightLooks.Each(), nightLooks.GreyUpper, nightLooks.Miss()
	j, _, err := judging.TakeLooks(nightLooks,
		func() (*nightly.Judgement, error) { return nightly.Judge(1, base, tonight, o) },
		func(int, []string) error {
			for _, v := range variantNames(1) {
				tonight = append(tonight, nm.cells(rng, v, n, names, scale)...)
			}
			return nil
		})
	must(err)
	return j.Outcome
}

// nightLooks are the nightly's defaults: alpha 0.05 over two looks, the
// grey zone below q 0.2.
var nightLooks = judging.Looks{Alpha: verdictAlpha, Extra: 1, GreyUpper: 0.2}

// verdictPower: at the change the tool says it could see, is it seen
// with power 0.8? noise's MDE (one metric), and the diff's own power line
// (the primary metric of 9, from the run's measured spread: each trial
// takes the figure a null run states and measures a run with that
// change).
func verdictPower(trials int, seed int64) []Row {
	const n, cv = 8, 0.03
	rng := rand.New(rand.NewPCG(uint64(seed), 80))
	stated := noise.MDE(cv, n)
	one := []string{"primary"}
	found := 0
	for t := 0; t < trials; t++ {
		rs := append(cells(rng, "base", n, one, cv, nil), cells(rng, "cand1", n, one, cv, map[string]float64{"primary": 1 + stated/100})...)
		d, err := compare.Compare(rs, "base", compare.Options{Alpha: verdictAlpha})
		must(err)
		if d.Metrics["cand1"][0].Verdict == verdict.Regression {
			found++
		}
	}
	rows := []Row{{
		Scenario: fmt.Sprintf("power at noise's stated MDE (n=%d, CV %.2f, one metric: %.1f%%)", n, cv, stated),
		Figure:   "found " + rate(found, trials),
		Goal:     "power >= 0.80",
		Met:      float64(found)/float64(trials) >= 0.8,
	}}
	names := metricNames(9)
	found, sum, counted := 0, 0.0, 0
	for t := 0; t < trials; t++ {
		null := append(cells(rng, "base", n, names, cv, nil), cells(rng, "cand1", n, names, cv, nil)...)
		d, err := compare.Compare(null, "base", opts())
		must(err)
		m := d.Metrics["cand1"][0]
		if m.Verdict != verdict.NoChange || math.IsNaN(m.CouldSeePct) || math.IsInf(m.CouldSeePct, 0) {
			continue
		}
		counted++
		sum += m.CouldSeePct
		rs := append(cells(rng, "base", n, names, cv, nil), cells(rng, "cand1", n, names, cv, map[string]float64{"primary": 1 + m.CouldSeePct/100})...)
		d, err = compare.Compare(rs, "base", opts())
		must(err)
		if d.Metrics["cand1"][0].Verdict == verdict.Regression {
			found++
		}
	}
	rows = append(rows, Row{
		Scenario: fmt.Sprintf("power at the diff's stated change (n=%d, CV %.2f, primary of 9 metrics: mean %.1f%%)", n, cv, sum/float64(max(counted, 1))),
		Figure:   "found " + rate(found, counted),
		Goal:     "power >= 0.80",
		Met:      counted > 0 && float64(found)/float64(counted) >= 0.8,
	})
	return rows
}

// verdictUnjudged: a nightly of 3 boots per variant, tonight's primary
// metric x10: the smallest p at 3+3 is 0.1, so the night must never pass
// (it passed, was marked good and became the baseline).
func verdictUnjudged(trials int, seed int64) []Row {
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	names := metricNames(9)
	pass, unjudged := 0, 0
	for t := 0; t < trials; t++ {
		switch nightOutcome(rng, lognormal("", 0.2), 3, names, map[string]float64{"primary": 10}, opts()) {
		case verdict.NightPass:
			pass++
		case verdict.NightUnjudged:
			unjudged++
		}
	}
	return []Row{{
		Scenario: "nightly, 3 boots per variant, primary metric x10",
		Figure:   fmt.Sprintf("pass %s, unjudged %s", rate(pass, trials), rate(unjudged, trials)),
		Goal:     "never pass (unjudged)",
		Met:      pass == 0 && unjudged == trials,
	}}
}

// verdictUdelay: the udelay case, 4+4 boots, the rstat lock hold p50 37
// times higher among 11 metrics, which a q-value over all 11 metrics
// called no significant change (docs/design-notes.md has the run).
// Judged as the rstat workload's primary metric, as run and diff do by
// default, it must be a regression.
func verdictUdelay(trials int, seed int64) []Row {
	rng := rand.New(rand.NewPCG(uint64(seed), 37))
	primary := rstat.Workload.Primary[0]
	names := append([]string{primary}, metricNames(11)[1:]...)
	flagged := 0
	for t := 0; t < trials; t++ {
		// Lock hold CV 0.3 between boots (the host clock's, README).
		rs := append(cells(rng, "base", 4, names, 0.3, nil), cells(rng, "patched", 4, names, 0.3, map[string]float64{primary: 37})...)
		d, err := compare.Compare(rs, "base", compare.Options{Alpha: verdictAlpha, DefaultPrimary: workload.AnyPrimary()})
		must(err)
		for _, m := range d.Metrics["patched"] {
			if m.Name == primary && m.Verdict == verdict.Regression {
				flagged++
			}
		}
	}
	return []Row{{
		Scenario: "4+4 boots, " + primary + " x37 among 11 metrics (the udelay case)",
		Figure:   "regression in " + rate(flagged, trials),
		Goal:     "regression in >= 99%",
		Met:      float64(flagged)/float64(trials) >= 0.99,
	}}
}
