package compare

import (
	"fmt"
	"strings"

	"github.com/kregress/kregress/results"
)

// KnownTitles are the kernel report titles a history of kernels judged
// good has printed (a panic's, a BUG's, a WARNING's title). A title in it
// is a known flake of the machine or the workload, not a signature the
// candidate introduced: a rare flaky panic printed by both sides shows up
// in one side's few cells and not the other's by chance, and judging it
// as new on one occurrence flags a comparison in which nothing changed.
type KnownTitles map[string]bool

// TitlesOf is every kernel report title rs printed.
func TitlesOf(rs []*results.Result) KnownTitles {
	k := KnownTitles{}
	for _, r := range rs {
		for _, f := range r.Findings {
			k[f.Title] = true
		}
	}
	return k
}

// Add puts every title of o in k.
func (k KnownTitles) Add(o KnownTitles) {
	for t := range o {
		k[t] = true
	}
}

// KnowTitles judges, in each of diffs, every candidate's kernel report
// whose title known holds as a rate rather than as new: it is no longer
// a new kernel report (NewReports), and a failure whose every signature
// is known is decided by the failure-rate exact test with the others
// (Benjamini-Hochberg over the diffs' failure rates, as judged before).
// A title no cell of the history and no baseline cell printed is still
// new and still fails the comparison on one occurrence. Pass every diff
// judged as one family at once (they were Rejudged together).
func KnowTitles(known KnownTitles, diffs ...*Diff) {
	if len(known) == 0 {
		return
	}
	for _, d := range diffs {
		for name, rcs := range d.Reports {
			for i := range rcs {
				if rcs[i].New && known[rcs[i].Title] {
					rcs[i].New = false
					rcs[i].Known = true
				}
			}
			d.Reports[name] = rcs
		}
		for name, f := range d.Failures {
			if f.Rule != RuleNewSignature {
				continue
			}
			var still []string
			for _, t := range f.NewSignatures {
				if !known[t] {
					still = append(still, t)
				}
			}
			f.NewSignatures = still
			if len(still) == 0 {
				f.Rule = RuleExactTest
			} else {
				f.Reason = fmt.Sprintf("%s: failed with kernel report(s) neither the baseline nor its history printed: %s", f.counts(), strings.Join(still, "; "))
			}
			d.Failures[name] = f
		}
	}
	judgeFailures(diffs...)
}
