package main

import (
	"fmt"
	"math"
)

// The bisect's mutation rows: its outlier screen off (the plain Gaussian
// likelihood on heavy tails), and no confirmation by revert. The rows on
// real boots have no outlier-screen mutation: without the screen they
// still meet their goals (the real cells' tails are not the 3x boots the
// screen is for), so a mutation of theirs would prove nothing.

// bisectOutlierMutationRows run the heavy-tail outlier row without the
// outlier screen (bisect.Options.OutlierZ +Inf), on the same boots.
func bisectOutlierMutationRows(trials int, seed int64) []Row {
	c := outlierCase
	c.outlierZ = math.Inf(1)
	s := "bisect 16 commits, 10% step, CV 0.05, 5% of boots at 3x"
	t, err := noiseTrials("", c, trials, seed, outlierStream)
	if err != nil {
		return []Row{{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"}}
	}
	return []Row{mutant("no outlier screen: the plain Gaussian likelihood", strictRow(s, t, trials, seed))}
}

// bisectRevertRows are the two-change row's bisects (its stream: the
// same ranges and boots) with a named culprit confirmed by revert, as
// kregress bisect does: reverting one of two changes leaves the bad
// endpoint between good and bad, and the answer must then say that the
// range holds more than one change. mutate: the bisect alone, without
// the revert, as a mutation row.
func bisectRevertRows(trials int, seed int64, mutate bool) []Row {
	s := "bisect 16 commits, two 10% steps in the range, CV 0.05, one of the two named, then confirmed by revert"
	if mutate {
		s = "bisect 16 commits, two 10% steps in the range, CV 0.05, one of the two named, not confirmed by revert"
	}
	t, err := noiseTrials("", noiseCase{two: true, confirm: !mutate}, trials, seed, twoStream)
	if err != nil {
		return []Row{{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"}}
	}
	n := max(1, t.right)
	r := Row{Scenario: s + ": the answer",
		Figure: fmt.Sprintf("says more than one change and gives the range(s) still to bisect in %s of the %d that named one of the two; the revert called like good (confirmed) %s, like bad %s; %.1f boots on average",
			pct(t.sayNamed, n), t.right, pct(t.confirmed, n), pct(t.refuted, n), float64(t.boots)/float64(t.trials)),
		Goal: ">= 90%", Met: float64(t.sayNamed) >= 0.9*float64(t.right)}
	if mutate {
		r = mutant("no revert check", r)
	}
	return []Row{r}
}

// bisectRevertOneRows are the single change's bisects confirmed by
// revert: reverting the one change leaves the bad endpoint like good, so
// the revert must confirm the culprit and must not say that the range
// holds more than one change (revertCall's third hypothesis, halfway,
// called where there is none).
func bisectRevertOneRows(trials int, seed int64) []Row {
	s := "bisect 16 commits, 10% step, CV 0.05, the named culprit confirmed by revert"
	t, err := noiseTrials("", noiseCase{confirm: true}, trials, seed, revertOneStream)
	if err != nil {
		return []Row{{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"}}
	}
	n := max(1, t.right)
	return []Row{{Scenario: s,
		Figure: fmt.Sprintf("of the %d right culprits: confirmed %s, says more than one change %s, not confirmed (like bad) %s; the revert %.1f boots on average (the bisect and revert %.1f)",
			t.right, pct(t.confirmed, n), pct(t.sayNamed, n), pct(t.refuted, n), float64(t.revertBoots)/float64(n), float64(t.boots)/float64(t.trials)),
		Goal: "confirmed >= 95%, more than one change <= 2%",
		Met:  float64(t.confirmed) >= 0.95*float64(t.right) && float64(t.sayNamed) <= 0.02*float64(t.right)}}
}

// revertOneStream is the single-change revert row's stream.
const revertOneStream = 14

func init() {
	scenarios = append(scenarios,
		Scenario{Name: "bisect-one-change-revert", Run: bisectRevertOneRows},
		Scenario{Name: mutationPrefix + "-bisect-outliers", Run: bisectOutlierMutationRows},
		Scenario{Name: "bisect-two-changes-revert", Run: func(trials int, seed int64) []Row { return bisectRevertRows(trials, seed, false) }},
		Scenario{Name: mutationPrefix + "-bisect-revert", Run: func(trials int, seed int64) []Row { return bisectRevertRows(trials, seed, true) }},
	)
}
