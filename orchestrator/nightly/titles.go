package nightly

import (
	"context"
	"fmt"
	"sort"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

// titleHistoryNights bounds the good nights whose kernel report titles
// are counted: enough boots that a title printed in a few percent of
// boots is in them, few enough that a store of years is not read.
const titleHistoryNights = 30

// A kernel report title (a panic's, a BUG's, a WARNING's) is learned from
// its rate over the good history: the newest titleHistoryNights good or
// accepted nights measured alike, every look's boots. Tonight's count of
// boots that printed the title is weighed against the history's by
// Fisher's one-sided exact test (is tonight's rate higher?), at level
// alpha / looks / (the titles tonight printed): a title whose rate has not
// changed fails a night with probability at most alpha / looks at each
// look, whatever its rate (the test is exact given both counts' total),
// and the night at most alpha over its looks; TestTitleRuleSimulated
// measures it through this code over simulated nights. A title within
// that rate is a known flake: it does not fail the night by itself and is
// judged as a rate against the baseline night (compare.KnowTitles). One
// above it fails the night, as does any title before the first good night
// (no history, no rate). So a flake a good kernel prints is learned from
// the nights it passes, not only by `baseline accept`; the price is that
// a new crash rare enough to be printed in one boot of a night with a
// short history passes as a flake, and is caught once its rate shows.

// titleHistory counts, over good nights, the boots that ran a kernel and
// the boots that printed each kernel report title.
type titleHistory struct {
	Nights  int
	Boots   int
	Printed map[string]int
}

// add counts one good night's cells.
func (h *titleHistory) add(rs []*results.Result) {
	boots, printed := titleCounts(rs)
	h.Nights++
	h.Boots += boots
	if h.Printed == nil {
		h.Printed = map[string]int{}
	}
	for t, c := range printed {
		h.Printed[t] += c
	}
}

// titleCounts is how many of rs ran a kernel (every cell but the
// harness's: infra_error, incomplete) and, per title, how many of those
// printed it (once per cell, however often).
func titleCounts(rs []*results.Result) (boots int, printed map[string]int) {
	printed = map[string]int{}
	for _, r := range rs {
		if r.Status.Infra() {
			continue
		}
		boots++
		seen := map[string]bool{}
		for _, f := range r.Findings {
			if !seen[f.Title] {
				seen[f.Title] = true
				printed[f.Title]++
			}
		}
	}
	return boots, printed
}

// titleVerdict is one title's test: tonight's count against the history's.
type titleVerdict struct {
	Title              string
	Tonight, Boots     int // boots tonight that printed it, of Boots
	History, HistBoots int // the same over the good history
	Nights             int
	P, Level           float64
	Flake              bool
}

// String says what the test found, for the night's notes and errors.
func (v titleVerdict) String() string {
	if v.Nights == 0 {
		return fmt.Sprintf("kernel report %q in %d of %d boots, and no good night yet to learn its rate from", v.Title, v.Tonight, v.Boots)
	}
	what := "above its rate in the good history"
	if v.Flake {
		what = "within its rate in the good history: a flake"
	}
	return fmt.Sprintf("kernel report %q in %d of %d boots tonight, %d of %d in the %d good nights before: %s (Fisher p=%.3g, level %.3g)",
		v.Title, v.Tonight, v.Boots, v.History, v.HistBoots, v.Nights, what, v.P, v.Level)
}

// judgeTitles tests every title tonight's cells printed against h at
// level alpha / (the number of titles), sorted by title.
func judgeTitles(h titleHistory, tonight []*results.Result, alpha float64) []titleVerdict {
	boots, printed := titleCounts(tonight)
	var out []titleVerdict
	if len(printed) == 0 {
		return nil
	}
	level := alpha / float64(len(printed))
	for t, k := range printed {
		v := titleVerdict{Title: t, Tonight: k, Boots: boots, History: h.Printed[t], HistBoots: h.Boots, Nights: h.Nights, P: 1, Level: level}
		if h.Nights > 0 && h.Boots > 0 {
			v.P = compare.FisherOneSided(k, boots, h.Printed[t], h.Boots)
			v.Flake = v.P >= level
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Title < out[j].Title })
	return out
}

// flakes is the titles of vs judged flakes.
func flakes(vs []titleVerdict) compare.KnownTitles {
	known := compare.KnownTitles{}
	for _, v := range vs {
		if v.Flake {
			known[v.Title] = true
		}
	}
	return known
}

// titleHistory counts the kernel report titles of this experiment's
// good nights before tonight (goodNights, at most titleHistoryNights). A
// store that cannot be read gives no history, so every title fails as
// before the first good night.
func (n *Night) titleHistory(ctx context.Context, experiment string, tonightID int64, tonight []*results.Result) titleHistory {
	var h titleHistory
	nights, err := n.goodNights(ctx, experiment, tonightID, tonight, titleHistoryNights)
	if err != nil {
		return h
	}
	for _, nt := range nights {
		h.add(nt.results)
	}
	return h
}

// knownFlake: r failed with kernel reports, every one of them a title
// known holds. A failure without a report (a hang, a boot that never
// answered) has no title to know it by.
func knownFlake(r *results.Result, known compare.KnownTitles) bool {
	if len(r.Findings) == 0 {
		return false
	}
	for _, f := range r.Findings {
		if !known[f.Title] {
			return false
		}
	}
	return true
}
