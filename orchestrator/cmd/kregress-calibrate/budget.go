package main

// The rows of looks cut short by a budget (looks.max_minutes,
// looks.max_boots): a null comparison whose further looks a budget stops
// after look 1 or 2 of 3 keeps its false alarms within alpha, and within
// the share of alpha its looks were given (alpha / 3 each, Bonferroni),
// the sharper goal that a rule spending more than planned misses. The looks
// are taken by judging.TakeLooksWithin, the budget asked through
// judging.Budget.Afford on a simulated clock, as run takes them
// (session.Session.Looks). A budget stops on boots and minutes, never on
// the figures, and every look stays judged at alpha split over the
// planned looks. The mutation re-spends alpha over the looks taken so
// far (look k judged at alpha / k, as if it were the last planned),
// which a budget that may stop at any look tempts.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

func init() {
	scenarios = append(scenarios,
		Scenario{Name: "verdict-looks-budget", Run: func(trials int, seed int64) []Row { return budgetRows(trials, seed, false) }},
		Scenario{Name: mutationPrefix + "-verdict-looks-budget", Run: func(trials int, seed int64) []Row { return budgetRows(trials, seed, true) }},
	)
}

// budgetLooks are three looks planned, every metric not significant
// measured again (grey zone up to q 1): the most looking a run can do,
// so that only the budget ends it short of the last.
var budgetLooks = judging.Looks{Alpha: verdictAlpha, Extra: 2, GreyUpper: 1}

// budgetBoot is every simulated boot's wall time.
const budgetBoot = time.Minute

// budgetRun is one simulated run of one metric (the primary), reps boots
// of each side a look, within budget on a simulated clock on which each
// boot takes budgetBoot: whether it called a change (significant) and
// the looks it took. mutated judges look k at alpha / k instead of
// alpha / 3.
func budgetRun(rng *rand.Rand, nm noiseModel, reps int, budget judging.Budget, mutated bool) (bool, judging.Taken) {
	names := metricNames(1)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	began := clock
	var rs []*results.Result
	measure := func() {
		for _, c := range append(nm.cells(rng, "base", reps, names, nil), nm.cells(rng, "cand1", reps, names, nil)...) {
			c.StartedAt, clock = clock, clock.Add(budgetBoot)
			c.FinishedAt = clock
			rs = append(rs, c)
		}
	}
	measure()
	afford := budget.Afford(func() time.Time { return clock }, began, 2*reps, func() ([]*results.Result, error) { return rs, nil })
	look := 1
	d, taken, err := judging.TakeLooksWithin(budgetLooks, afford,
		func() (*compare.Diff, error) {
			o := opts()
			o.Alpha, o.GreyUpper, o.Miss = budgetLooks.Each(), budgetLooks.GreyUpper, budgetLooks.Miss()
			if mutated {
				o.Alpha = budgetLooks.Alpha / float64(look)
			}
			return compare.Compare(rs, "base", o)
		},
		func(int, []string) error { look++; measure(); return nil })
	must(err)
	return significant(d), taken
}

// budgetRows: null runs of 8 boots a side a look (a Mann-Whitney p that
// can fall near any alpha), 3 looks planned, a budget stopping them
// after look 1 (on minutes) or look 2 (on boots): a change called (either
// way) at most alpha times the looks taken over the looks planned. With
// mutated, the rows are mutation rows: they must miss.
func budgetRows(trials int, seed int64, mutated bool) []Row {
	const reps = 8
	models := []noiseModel{lognormal("lognormal CV 0.2", 0.2), resampled(realCellOf(realExperiment, realBaseline))}
	var rows []Row
	for mi, nm := range models {
		for bi, b := range []struct {
			what   string
			budget judging.Budget
			stopAt int
		}{
			// 16 boots of a minute a look: another round is 16 minutes.
			{"looks.max_minutes 31 (a round of ~16 min after 16 spent)", judging.Budget{MaxMinutes: 31}, 1},
			{"looks.max_boots 47 (a round of 16 boots after 32)", judging.Budget{MaxBoots: 47}, 2},
		} {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(9100+10*mi+bi)))
			flagged, budgetStops, wrongStop := 0, 0, 0
			for t := 0; t < trials; t++ {
				called, taken := budgetRun(rng, nm, reps, b.budget, mutated)
				if called {
					flagged++
				}
				switch {
				case taken.Stop == judging.StopBudget && taken.Looks == b.stopAt:
					budgetStops++
				case taken.Stop == judging.StopBudget || taken.Looks > b.stopAt:
					wrongStop++
				}
			}
			// The looks taken were given alpha / 3 each.
			given := verdictAlpha * float64(b.stopAt) / float64(budgetLooks.N())
			se := math.Sqrt(given * (1 - given) / float64(trials))
			// A budget that never stops the looks, or stops them where
			// it should not, calibrates nothing of a budget.
			met := float64(flagged)/float64(trials) <= given+2*se && budgetStops > 0 && wrongStop == 0
			r := Row{
				Scenario: fmt.Sprintf("null, 1 metric, %s: run of %d boots a side a look, 3 looks planned (grey zone q < 1), %s: stopped by the budget after look %d in %s", nm.Name, reps, b.what, b.stopAt, rate(budgetStops, trials)),
				Figure:   "a change called " + rate(flagged, trials),
				Goal:     fmt.Sprintf("<= %.4f, alpha %.2f x %d of %d looks (+2 s.e. %.4f); the budget stopping at look %d only", given, verdictAlpha, b.stopAt, budgetLooks.N(), 2*se, b.stopAt),
				Met:      met,
			}
			if mutated {
				r = mutant("alpha re-spent over the looks taken: look k judged at alpha / k", r)
			}
			rows = append(rows, r)
		}
	}
	return rows
}
