package compare

import (
	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// SetSummary describes one set on its own (a family with only its
// baseline, e.g. when a candidate could not be built).
type SetSummary struct {
	Statuses map[results.Status]int
	// Confidence is the level of the medians' intervals.
	Confidence float64
	// Metrics: each metric of the ok cells, in order of appearance.
	Metrics []MetricSummary
	// WorstHolders: holder of each run's irqs-off worst section.
	WorstHolders []Holder
	Selftests    SelftestSet
}

// MetricSummary is one metric's sample in a set.
type MetricSummary struct {
	Name, Unit string
	Summary
}

// SummarizeSet summarises one set: per metric the median with its
// confidence interval and n, the irqs-off holders, the selftests.
func SummarizeSet(rs []*results.Result, opts Options) SetSummary {
	opts = opts.withDefaults()
	var order []string
	values := map[string][]float64{}
	meta := map[string]agentproto.Metric{}
	s := SetSummary{Statuses: map[results.Status]int{}, Confidence: opts.Confidence}
	worst := map[string]int{}
	nworst := 0
	for _, r := range rs {
		s.Statuses[r.Status]++
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
	for _, name := range order {
		s.Metrics = append(s.Metrics, MetricSummary{Name: name, Unit: meta[name].Unit, Summary: summarize(values[name], opts.Confidence)})
	}
	s.WorstHolders = holders(worst, nworst)
	s.Selftests = selftestSet(rs)
	return s
}
