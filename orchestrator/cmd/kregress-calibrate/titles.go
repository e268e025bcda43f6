package main

// Titled flakes: a panic with the same title that both kernels print in a
// few percent of boots (a flaky driver, a racy test). A night's baseline
// misses it by chance often, and a title the baseline did not print was a
// new signature, flagged on one occurrence. The nightly now judges a title
// its good nights printed as a rate (compare.KnowTitles); these rows run
// nightly.JudgeKnown, the nightly's judge, with the titles of simulated
// good nights.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/nightreport"
)

const (
	flakyTitle = "general protection fault in flaky_driver_poll"
	// titleNights is the good nights of history the rows give the judge
	// (the nightly reads up to 30).
	titleNights = 7
	titleBoots  = 8
)

// titledCells is n cells of variant, each crashed with a panic titled
// title with probability rate, else ok: with one quiet metric, or, when
// real is set, with the first 9 metrics of a boot resampled from it.
func titledCells(rng *rand.Rand, real *noiseModel, variant string, n int, rate float64, title string) []*results.Result {
	var rs []*results.Result
	for i := 0; i < n; i++ {
		var r *results.Result
		if real != nil {
			r = real.cells(rng, variant, 1, metricNames(9), nil)[0]
			r.Repetition = i + 1
		} else {
			r = &results.Result{Variant: variant, Repetition: i + 1, Status: results.StatusOK,
				Metrics: []agentproto.Metric{{Name: "primary", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 1000 * math.Exp(0.05*rng.NormFloat64())}}}
		}
		if rng.Float64() < rate {
			r.Status, r.Metrics = results.StatusCrashed, nil
			r.Findings = []results.Finding{{Kind: results.FindingPanic, Title: title, Count: 1}}
		}
		rs = append(rs, r)
	}
	return rs
}

// nightOf is one night of both variants at rate.
func nightOf(rng *rand.Rand, real *noiseModel, rate float64, title string) []*results.Result {
	var rs []*results.Result
	for _, v := range variantNames(1) {
		rs = append(rs, titledCells(rng, real, v, titleBoots, rate, title)...)
	}
	return rs
}

// crashFlagged: the night failed on a failure rate or a kernel report
// (not on a metric).
func crashFlagged(j *nightly.Judgement) bool {
	for _, c := range j.Cases {
		if c.Status == nightreport.CaseFailure && c.Kind.Crash() {
			return true
		}
	}
	return false
}

// titledFlakeRows: the same flaky title on both sides at 2/5/10% of
// boots, with titleNights good nights of history, the ok cells with one
// quiet metric and then with real boots resampled; weak judges without
// the history (every title the baseline lacks is new, as before) and
// returns only those mutation rows.
func titledFlakeRows(trials int, seed int64, weak bool) []Row {
	se := math.Sqrt(verdictAlpha * (1 - verdictAlpha) / float64(trials))
	goal := fmt.Sprintf("flagged <= %.2f (+2 s.e. %.4f)", verdictAlpha, 2*se)
	stock := resampled(realCellOf(realExperiment, realBaseline))
	var rows []Row
	for mi, real := range []*noiseModel{nil, &stock} {
		what := ""
		if real != nil {
			what = ", ok boots " + real.Name + " on both sides, 9 metrics"
		}
		for i, rate := range []float64{0.02, 0.05, 0.10} {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(600+20*mi+i)))
			flagged, judged := 0, 0
			for t := 0; t < trials; t++ {
				known := compare.KnownTitles{}
				for h := 0; h < titleNights; h++ {
					known.Add(compare.TitlesOf(nightOf(rng, real, rate, flakyTitle)))
				}
				if weak {
					known = nil
				}
				base, tonight := nightOf(rng, real, rate, flakyTitle), nightOf(rng, real, rate, flakyTitle)
				j, err := nightly.JudgeKnown(1, base, tonight, compare.Options{Alpha: verdictAlpha, GreyUpper: 0.2}, known)
				if err != nil {
					continue // a baseline variant without an ok cell: no comparison
				}
				judged++
				if crashFlagged(j) {
					flagged++
				}
			}
			r := Row{
				Scenario: fmt.Sprintf("nightly, same flaky panic title both sides in %.0f%% of boots, 2 variants 8+8, %d good nights of history%s", rate*100, titleNights, what),
				Figure:   "flagged " + rate2(flagged, judged),
				Goal:     goal,
				Met:      judged > 0 && float64(flagged)/float64(judged) <= verdictAlpha+2*se,
			}
			if weak {
				r = mutant("titled flakes judged as new, no history", r)
			}
			rows = append(rows, r)
		}
		if weak {
			continue
		}
		// A title nobody printed is still a signature: one cell of 8
		// with it fails the night, whatever the history knows of the
		// flaky title.
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(610+20*mi)))
		known := compare.KnownTitles{}
		for h := 0; h < titleNights; h++ {
			known.Add(compare.TitlesOf(nightOf(rng, real, 0.10, flakyTitle)))
		}
		base := nightOf(rng, real, 0, "")
		tonight := nightOf(rng, real, 0, "")
		tonight[len(tonight)-1] = titledCells(rng, real, "cand1", 1, 1, "kernel BUG at mm/slub.c:new_in_tonight")[0]
		j, err := nightly.JudgeKnown(1, base, tonight, compare.Options{Alpha: verdictAlpha, GreyUpper: 0.2}, known)
		must(err)
		rows = append(rows, Row{
			Scenario: "nightly, a panic title neither the baseline nor its history printed, in 1 of 8 cells (history knows the flaky title)" + what,
			Figure:   fmt.Sprintf("outcome %s, crash case flagged: %t", j.Outcome, crashFlagged(j)),
			Goal:     "flagged (regression)",
			Met:      crashFlagged(j),
		})
	}
	if weak {
		return rows
	}
	// How much history the rule needs: the new-signature path alone, one
	// variant of 8+8, at its worst over the flake's rate (a title missing
	// from the baseline's 8 cells and its h boots of history, printed by
	// the candidate), exactly.
	need := -1
	for h := 0; h <= 1000 && need < 0; h += 8 {
		worst := 0.0
		for pct := 1; pct <= 50; pct++ {
			q := 1 - float64(pct)/100
			worst = math.Max(worst, (1-math.Pow(q, 8))*math.Pow(q, float64(8+h)))
		}
		if worst <= verdictAlpha {
			need = h
		}
	}
	rows = append(rows, Row{
		Scenario: "titled flake, history a variant needs so that a title missing from it flags <= 5% at any rate 1..50% (new-signature path, 8+8, exact)",
		Figure:   fmt.Sprintf("%d boots of good history (%d nights of %d boots, both variants' titles counted)", need, (need+2*titleBoots-1)/(2*titleBoots), titleBoots),
		Goal:     "figure (no goal)",
		Met:      need >= 0,
	})
	return rows
}

// rate2 is rate with its own denominator.
func rate2(hits, n int) string { return rate(hits, max(n, 1)) }

// crashFlaggedCases: crashFlagged over a night report's cases.
func crashFlaggedCases(cs []nightreport.Case) bool {
	return crashFlagged(&nightly.Judgement{Cases: cs})
}
