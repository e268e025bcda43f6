package main

import (
	"errors"
	"fmt"
	"math"
	"math/rand"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// The failure-rate rows: cells of a baseline and a candidate are simulated
// as stored results and judged by compare.Compare, the code `run`, `diff`
// and the nightly use.

const failAlpha = 0.05

// simCell is one simulated cell: ok with a metric drawn from the same
// distribution on both sides, or failed with status (and a kernel report
// titled title, when not empty).
func simCell(rng *rand.Rand, variant string, status results.Status, title string) *results.Result {
	r := &results.Result{Variant: variant, Status: status}
	if status == results.StatusOK {
		r.Metrics = []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 1000 * (1 + 0.03*rng.NormFloat64())}}
	}
	if title != "" {
		r.Findings = []results.Finding{{Kind: results.FindingPanic, Title: title, Count: 1}}
	}
	return r
}

// flakySide is n cells, each failing (a timeout: no kernel report) with
// probability rate.
func flakySide(rng *rand.Rand, variant string, n int, rate float64) []*results.Result {
	var rs []*results.Result
	for i := 0; i < n; i++ {
		st := results.StatusOK
		if rng.Float64() < rate {
			st = results.StatusTimeout
		}
		rs = append(rs, simCell(rng, variant, st, ""))
	}
	return rs
}

// fixedSide is n cells, the first failed of them failed with status.
func fixedSide(rng *rand.Rand, variant string, n, failed int, status results.Status, title string) []*results.Result {
	var rs []*results.Result
	for i := 0; i < n; i++ {
		st, t := results.StatusOK, ""
		if i < failed {
			st, t = status, title
		}
		rs = append(rs, simCell(rng, variant, st, t))
	}
	return rs
}

func failRateRows(trials int, seed int64) []Row {
	rng := rand.New(rand.NewSource(seed))
	var rows []Row
	// Same flaky failure rate on both sides, 8+8: how often is a
	// failure-rate regression called? Trials whose baseline has no ok
	// cell are refused by Compare (the baseline is unmeasured) and are
	// not comparisons; they are counted apart.
	for _, rate := range []float64{0.02, 0.05, 0.10} {
		alarms, judged := 0, 0
		for i := 0; i < trials; i++ {
			rs := append(flakySide(rng, "base", 8, rate), flakySide(rng, "cand", 8, rate)...)
			d, err := compare.Compare(rs, "base", compare.Options{Alpha: failAlpha})
			var be *compare.BaselineError
			if errors.As(err, &be) {
				continue
			}
			if err != nil {
				return append(rows, Row{Scenario: fmt.Sprintf("same flaky failure rate both sides, %.0f%%, 8+8", rate*100), Figure: "error: " + err.Error(), Goal: "false alarm <= 0.05"})
			}
			judged++
			if d.Failures["cand"].Verdict == verdict.Regression {
				alarms++
			}
		}
		fa := float64(alarms) / float64(max(judged, 1))
		rows = append(rows, Row{
			Scenario: fmt.Sprintf("same flaky failure rate both sides, %.0f%% (timeouts), 8+8", rate*100),
			Figure:   fmt.Sprintf("false alarm %.3f (%d of %d)", fa, alarms, judged),
			Goal:     fmt.Sprintf("false alarm <= %.2f", failAlpha),
			Met:      judged > 0 && fa <= failAlpha,
		})
	}
	rows = append(rows, exactRows(rng)...)
	rows = append(rows, single("candidate fails 5 of 5, baseline 2 of 5 (boot_failed)",
		append(fixedSide(rng, "base", 5, 2, results.StatusBootFailed, ""), fixedSide(rng, "cand", 5, 5, results.StatusBootFailed, "")...),
		"flagged (exit 3)", func(d *compare.Diff) (string, bool) {
			f := d.Failures["cand"]
			return fmt.Sprintf("%s by %s (%s p=%.3f)", f.Verdict, f.Rule, f.Test, f.P), f.Verdict == verdict.Regression && len(d.Failing()) > 0
		}))
	infra := fixedSide(rng, "cand", 5, 5, results.StatusInfra, "")
	rows = append(rows, single("candidate whose every cell was infra_error, 5+5",
		append(fixedSide(rng, "base", 5, 0, "", ""), infra...),
		"unmeasured (exit 1), never pass", func(d *compare.Diff) (string, bool) {
			f := d.Failures["cand"]
			err := compare.UnmeasuredErr(d)
			return fmt.Sprintf("%s; gate error: %t", f.Verdict, err != nil), f.Verdict == verdict.Unmeasured && err != nil && len(d.Failing()) == 0
		}))
	rows = append(rows, single("one new kernel report title in 1 of 8 cells (a WARNING, cell ok)",
		append(fixedSide(rng, "base", 8, 0, "", ""), withWarning(fixedSide(rng, "cand", 8, 0, "", ""))...),
		"flagged (exit 3)", func(d *compare.Diff) (string, bool) {
			return fmt.Sprintf("%d new report(s) flagged", len(d.NewReports())), len(d.NewReports()) == 1 && len(d.Failing()) == 1
		}))
	rows = append(rows, single("1 of 3 cells panics with a title the baseline never printed (e2e shape), 3+3",
		append(fixedSide(rng, "base", 3, 0, "", ""), fixedSide(rng, "cand", 3, 1, results.StatusCrashed, "kernel panic: Fatal exception")...),
		"failure-rate regression (exit 3)", func(d *compare.Diff) (string, bool) {
			f := d.Failures["cand"]
			return fmt.Sprintf("%s by %s (%s p=%.3f)", f.Verdict, f.Rule, f.Test, f.P), f.Verdict == verdict.Regression
		}))
	return rows
}

// withWarning gives the first cell of rs a WARNING its baseline never
// printed.
func withWarning(rs []*results.Result) []*results.Result {
	rs[0].Findings = append(rs[0].Findings, results.Finding{Kind: results.FindingWarning, Title: "WARNING in css_rstat_flush", Count: 1})
	return rs
}

// single judges one fixed scenario (its figure does not depend on the
// trial: the rule it exercises is not a rate).
func single(scenario string, rs []*results.Result, goal string, check func(*compare.Diff) (string, bool)) Row {
	d, err := compare.Compare(rs, "base", compare.Options{Alpha: failAlpha})
	if err != nil {
		return Row{Scenario: scenario, Figure: "error: " + err.Error(), Goal: goal}
	}
	fig, ok := check(d)
	return Row{Scenario: scenario, Figure: fig, Goal: goal, Met: ok}
}

// exactRows judge every table of 8+8 cells (a of the candidate's failed,
// b of the baseline's; untitled failures) once through compare.Compare,
// then weigh the verdicts by their binomial probability: the false-alarm
// rate at its worst over the rate both sides share, and the power against
// a candidate failing half its cells, exactly rather than by simulation.
//
// The test's own verdicts are weighed over every shared rate. The rule that
// a candidate with no ok cell fails (nothing of it could be measured)
// is no test: at a shared rate r it fires with probability r^8,
// past alpha from r = 69% on, where the baseline itself fails most cells;
// so the row with the rules included goes up to a shared rate of 50%.
func exactRows(rng *rand.Rand) []Row {
	const n = 8
	var byTest, byAny [n + 1][n + 1]bool
	for a := 0; a <= n; a++ {
		for b := 0; b < n; b++ { // b = n: the baseline has no ok cell, Compare refuses it
			rs := append(fixedSide(rng, "base", n, b, results.StatusTimeout, ""), fixedSide(rng, "cand", n, a, results.StatusTimeout, "")...)
			d, err := compare.Compare(rs, "base", compare.Options{Alpha: failAlpha})
			if err != nil {
				return []Row{{Scenario: "same failure rate both sides, 8+8, exact", Figure: "error: " + err.Error(), Goal: "false alarm <= 0.05"}}
			}
			f := d.Failures["cand"]
			byAny[a][b] = f.Verdict == verdict.Regression
			byTest[a][b] = byAny[a][b] && f.Rule == compare.RuleExactTest
		}
	}
	// prob is P(flagged) when the candidate's cells fail at pc and the
	// baseline's at pb, given the baseline had an ok cell.
	prob := func(flagged *[n + 1][n + 1]bool, pc, pb float64) float64 {
		s, ok := 0.0, 0.0
		for a := 0; a <= n; a++ {
			for b := 0; b < n; b++ {
				w := binom(a, n, pc) * binom(b, n, pb)
				ok += w
				if flagged[a][b] {
					s += w
				}
			}
		}
		return s / ok
	}
	worst := func(flagged *[n + 1][n + 1]bool, upTo int) (float64, int) {
		w, at := 0.0, 0
		for i := 1; i <= upTo; i++ {
			if v := prob(flagged, float64(i)/100, float64(i)/100); v > w {
				w, at = v, i
			}
		}
		return w, at
	}
	wt, att := worst(&byTest, 99)
	wa, ata := worst(&byAny, 50)
	power := prob(&byAny, 0.5, 0)
	return []Row{
		{Scenario: "same failure rate both sides, worst over rates 1..99%, the test's verdicts (timeouts), 8+8, exact", Figure: fmt.Sprintf("false alarm %.3f at %d%%", wt, att), Goal: fmt.Sprintf("false alarm <= %.2f", failAlpha), Met: wt <= failAlpha},
		{Scenario: "same failure rate both sides, worst over rates 1..50%, every rule (timeouts), 8+8, exact", Figure: fmt.Sprintf("false alarm %.3f at %d%%", wa, ata), Goal: fmt.Sprintf("false alarm <= %.2f", failAlpha), Met: wa <= failAlpha},
		{Scenario: "candidate fails 50% of cells, baseline 0% (timeouts), 8+8, exact", Figure: fmt.Sprintf("flagged %.3f", power), Goal: "flagged >= 0.80 (Fisher's test: 0.64)", Met: power >= 0.80},
	}
}

// binom is P(X = k) for X ~ Bin(n, p).
func binom(k, n int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	switch {
	case p <= 0:
		return map[bool]float64{true: 1}[k == 0]
	case p >= 1:
		return map[bool]float64{true: 1}[k == n]
	}
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}
