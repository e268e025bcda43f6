package format

import (
	"fmt"
	"io"
	"math"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// writeLKP renders the 0-day bot's view: mean ± relative stddev, %change
// of the means, one line per metric. It is lkp-tests' comparison table,
// not Go benchmark format, so benchfmt.Writer does not apply (results
// export writes benchfmt).
func writeLKP(w io.Writer, d *compare.Diff) {
	for _, v := range d.Variants[1:] {
		fmt.Fprintf(w, "%18s %18s\n", d.Baseline, v.Name)
		fmt.Fprintf(w, "%s\n", "---------------- ---------------------------")
		fmt.Fprintf(w, "%9s %%stddev     %%change         %%stddev\n", "")
		fmt.Fprintf(w, "%13s \\          |                \\\n", "")
		if f := d.Failures[v.Name]; f.Verdict == verdict.Unmeasured {
			fmt.Fprintf(w, "%14s UNMEASURED: %s\n", "", f.Reason)
		}
		for _, m := range d.Metrics[v.Name] {
			fmt.Fprintf(w, "%14s %s %9s %s %14s %s  %s\n", lkpNum(m.Base.Mean), lkpStddev(m.Base), lkpChange(m), lkpMark(m.Verdict), lkpNum(m.Cand.Mean), lkpStddev(m.Cand), m.Name)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "(means and the change of the means, as lkp-tests prints them; the other formats print medians.\n * significant: Mann-Whitney U on the samples (a test of the distributions, not of the means), Benjamini-Hochberg q < alpha;\n ? too few: too few samples for any change of the metric to reach alpha)")
}

// lkpChange is the change of the means, "~" from a mean of 0.
func lkpChange(m compare.Metric) string {
	if m.Base.Mean == 0 {
		return "~"
	}
	return fmt.Sprintf("%+.1f%%", (m.Cand.Mean-m.Base.Mean)/math.Abs(m.Base.Mean)*100)
}

// lkpMark is lkp's significance column.
func lkpMark(v verdict.Change) string {
	switch v {
	case verdict.Regression, verdict.Improvement:
		return "*" // significant (U test, FDR-adjusted)
	case verdict.Unjudged:
		return "?" // too few samples to call any change
	}
	return " "
}

func lkpNum(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func lkpStddev(s compare.Summary) string {
	if s.N < 2 || s.StddevPct < 0.5 {
		return "       "
	}
	return fmt.Sprintf("± %3.0f%%", s.StddevPct)
}
