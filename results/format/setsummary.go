package format

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format/num"
)

// WriteSetSummary describes one set on its own (a family with only its
// baseline, e.g. when a candidate could not be built): per metric the
// median with its confidence interval and n, then the irqs-off holders.
func WriteSetSummary(w io.Writer, label string, s compare.SetSummary) {
	fmt.Fprintf(w, "%s: %s (no other variant to compare with; median [%.0f%% CI])\n\n", label, num.Statuses(s.Statuses), s.Confidence*100)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\t%s\tn\t\n", label)
	for _, m := range s.Metrics {
		fmt.Fprintf(tw, "%s (%s)\t%s\t%d\t\n", m.Name, m.Unit, Summary(m.Summary), m.N)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nirqs-off worst section per run held by: %s\n", Holders(s.WorstHolders, 4))
	if set := s.Selftests; set.Runs > 0 {
		fmt.Fprintf(w, "cgroup selftests: %d tests in %d run(s): %s\n", len(set.Outcomes), set.Runs, set.Counts())
	}
}
