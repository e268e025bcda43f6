package bisect

import (
	"fmt"
	"sort"

	"github.com/kregress/kregress/results/bisectreport"
)

// More than one change: the search names one commit, the first at which
// the metric looks like bad. When the range holds two changes, a commit
// between them looks like neither endpoint (its test says "between"),
// and a revert of one of them leaves the bad endpoint between too. The
// answer then says so, names what it found, and gives the range still to
// bisect, so that the second change is not lost in a confident answer
// about the first.

// MoreChanges says the data show more than one change in the range.
type MoreChanges struct {
	// Why: what showed it (the commits measured between the endpoints,
	// or the revert).
	Why string `json:"why"`
	// Names: the commits named as changes (the culprit; both when both
	// were found).
	Names []string `json:"names,omitempty"`
	// Remaining: the good and bad ends of each range still holding a
	// change not named, to bisect on its own.
	Remaining [][2]string `json:"remaining,omitempty"`
}

// String is the note as the bisect prints it.
func (m *MoreChanges) String() string {
	if m == nil {
		return ""
	}
	s := "more than one change in the range: " + m.Why
	for _, r := range m.Remaining {
		s += fmt.Sprintf("; still to bisect: %.12s (good) .. %.12s (bad)", r[0], r[1])
	}
	return s
}

// betweenSteps are the indices of the commits whose test found them
// between the endpoints, in order.
func betweenSteps(steps []Step) []int {
	var out []int
	for _, s := range steps {
		if s.Index >= 0 && s.Verdict == Undecided && s.Test != nil && s.Test.Outcome == Between {
			out = append(out, s.Index)
		}
	}
	sort.Ints(out)
	return out
}

// noteMoreChanges sets res.MoreChanges when a commit was measured
// between the endpoints. With a culprit named at k, a commit j between
// the endpoints holds one change and not the other: the other lies in
// good..j when j is before k, in j..bad when after. When the bisect
// ended as a range, the between commits split the range in two, each
// still to bisect.
func noteMoreChanges(res *Result, commits []string) {
	bs := betweenSteps(res.Steps)
	if len(bs) == 0 {
		return
	}
	n := len(commits) - 1
	m := &MoreChanges{Why: fmt.Sprintf("%d commit(s) measured between the endpoints (like neither good nor bad): %s", len(bs), shortList(commits, bs))}
	k := -1
	for i, c := range commits {
		if c == res.Culprit && res.Culprit != "" {
			k = i
		}
	}
	switch {
	case k >= 0:
		m.Names = []string{res.Culprit}
		lo, hi := bs[0], bs[len(bs)-1]
		switch {
		case hi < k:
			m.Remaining = [][2]string{{commits[0], commits[lo]}}
		case lo > k:
			m.Remaining = [][2]string{{commits[hi], commits[n]}}
		default:
			// Between commits on both sides of the culprit: it cannot be
			// the only change, nor the first with the others after it.
			m.Remaining = [][2]string{{commits[0], commits[lo]}, {commits[hi], commits[n]}}
		}
	default:
		lo, hi := bs[0], bs[len(bs)-1]
		m.Remaining = [][2]string{{commits[0], commits[lo]}, {commits[hi], commits[n]}}
	}
	res.MoreChanges = m
}

// noteRevert adds what a revert that leaves the bad endpoint between
// says: the culprit is a change, not the whole of it.
func noteRevert(res *Result, commits []string, c *Confirmation) {
	if c == nil || c.Outcome != bisectreport.RevertBetween {
		return
	}
	why := "with the culprit reverted the bad endpoint is between good and bad: the culprit is part of the change, another commit holds the rest"
	if res.MoreChanges == nil {
		res.MoreChanges = &MoreChanges{Why: why, Names: []string{res.Culprit}}
		k := -1
		for i, x := range commits {
			if x == res.Culprit {
				k = i
			}
		}
		if k > 0 {
			res.MoreChanges.Remaining = [][2]string{{commits[0], commits[k-1]}, {commits[k], commits[len(commits)-1]}}
		}
		return
	}
	res.MoreChanges.Why += "; " + why
}

func shortList(commits []string, idx []int) string {
	s := ""
	for i, k := range idx {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.12s", commits[k])
	}
	return s
}
