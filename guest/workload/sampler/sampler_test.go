package sampler

import (
	"testing"

	"github.com/kregress/kregress/guest/report"
)

func TestIrqsoffMetrics(t *testing.T) {
	irq := &report.Irqsoff{
		Worst: &report.Section{LatencyUS: 900},
		Windows: []report.Section{
			{LatencyUS: 100, EndedAt: "cgroup_rstat_flush"},
			{LatencyUS: 900, EndedAt: "handle_softirqs"},
			{LatencyUS: 300, Stack: []string{"cgroup_rstat_flush_locked"}},
			{LatencyUS: 200, EndedAt: "x"},
		},
	}
	got := map[string]float64{}
	for _, m := range IrqsoffMetrics(irq, "rstat") {
		got[m.Name] = m.Value
	}
	if got["irqsoff_worst_us"] != 900 || got["irqsoff_window_p50_us"] != 200 || got["irqsoff_rstat_windows_pct"] != 50 {
		t.Fatalf("%v", got)
	}
	if len(IrqsoffMetrics(irq, "")) != 2 || IrqsoffMetrics(nil, "x") != nil {
		t.Fatal("held-by metric only when asked; none without a tracer result")
	}
}
