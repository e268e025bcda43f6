package nightly

import (
	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/stats"
	"github.com/kregress/kregress/results"
)

// judgedMetrics: the metrics of rs that have a direction.
func judgedMetrics(rs []*results.Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		for _, m := range r.Metrics {
			if m.Direction != agentproto.Informational && !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m.Name)
			}
		}
	}
	return out
}

// metricMedian is the median of one metric over rs's ok cells.
func metricMedian(rs []*results.Result, metric string) (float64, bool) {
	var xs []float64
	for _, r := range rs {
		if !r.Status.OK() {
			continue
		}
		for _, m := range r.Metrics {
			if m.Name == metric {
				xs = append(xs, m.Value)
			}
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	return stats.Median(xs), true
}

// unitOf is a metric's unit as rs report it.
func unitOf(rs []*results.Result, metric string) string {
	for _, r := range rs {
		for _, m := range r.Metrics {
			if m.Name == metric {
				return m.Unit
			}
		}
	}
	return ""
}
