package format

import (
	"fmt"
	"strings"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// VerdictLine is d's verdict line as the terminal prints it ("verdict:
// ..."), and its kind (Regression, Unmeasured, Unjudged, Improvement or
// NoChange): the one wording of a diff's verdict, which the table and
// the HTML page both print, so that they never say different things.
// Its order follows the exit code's: anything failing (exit 3) before
// unmeasured (1) before unjudged (9).
func VerdictLine(d *compare.Diff) (verdict.Verdict, string) {
	regs := d.Regressions()
	unmeasured := d.Unmeasured()
	unjudged := d.Unjudged()
	switch imps := d.Improvements(); {
	case len(regs) > 0:
		return verdict.Regression, fmt.Sprintf("verdict: %d significant regression(s): %s", len(regs), strings.Join(regs, "; "))
	case len(d.Failing()) > 0:
		return verdict.Regression, "verdict: FLAGGED (below: new kernel reports or selftest failures)"
	case len(unmeasured) > 0:
		// Never "no significant change": a candidate was not seen at all.
		return verdict.Unmeasured, "verdict: unmeasured: " + strings.Join(unmeasured, "; ")
	case len(unjudged) > 0:
		return verdict.Unjudged, "verdict: UNJUDGED: " + strings.Join(unjudged, "; ")
	case len(imps) > 0:
		return verdict.Improvement, "verdict: no significant regression; improvements: " + strings.Join(imps, "; ")
	}
	return verdict.NoChange, "verdict: no significant change"
}
