package compare

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// WriteSummary describes one set on its own (a family with only its
// baseline, e.g. when a candidate could not be built): per metric the
// median with its confidence interval and n, then the irqs-off holders.
func WriteSummary(w io.Writer, label string, rs []*results.Result, opts Options) {
	opts = opts.withDefaults()
	var order []string
	values := map[string][]float64{}
	meta := map[string]agentproto.Metric{}
	st := map[results.Status]int{}
	worst := map[string]int{}
	nworst := 0
	for _, r := range rs {
		st[r.Status]++
		if !r.Status.OK() {
			continue
		}
		for _, m := range r.Metrics {
			if _, ok := meta[m.Name]; !ok {
				meta[m.Name] = m
				order = append(order, m.Name)
			}
			values[m.Name] = append(values[m.Name], m.Value)
		}
		if r.IrqsoffHolder != "" {
			worst[r.IrqsoffHolder]++
			nworst++
		}
	}
	fmt.Fprintf(w, "%s: %s (no other variant to compare with; median [%.0f%% CI])\n\n", label, statusLine(st), opts.Confidence*100)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\t%s\tn\t\n", label)
	for _, name := range order {
		s := summarize(values[name], opts.Confidence)
		fmt.Fprintf(tw, "%s (%s)\t%s\t%d\t\n", name, meta[name].Unit, fmtSummary(s), s.N)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nirqs-off worst section per run held by: %s\n", fmtHolders(holders(worst, nworst), 4))
	if set := selftestSet(rs); set.Runs > 0 {
		fmt.Fprintf(w, "cgroup selftests: %d tests in %d run(s): %s\n", len(set.Outcomes), set.Runs, set.Counts())
	}
}
