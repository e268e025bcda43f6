package sampler

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/param"
)

func TestIrqsoffMetrics(t *testing.T) {
	irq := &agentproto.Irqsoff{
		Worst: &agentproto.Section{LatencyUS: 900},
		Windows: []agentproto.Section{
			{LatencyUS: 100, EndedAt: "cgroup_rstat_flush"},
			{LatencyUS: 900, EndedAt: "handle_softirqs"},
			{LatencyUS: 300, Stack: []string{"cgroup_rstat_flush_locked"}},
			{LatencyUS: 200, EndedAt: "x"},
		},
	}
	got := map[string]float64{}
	rstat := &metrics.Holder{Substr: "rstat", Share: metrics.Define("irqsoff_rstat_windows_pct", "%", metrics.Lower, "share")}
	for _, m := range IrqsoffMetrics(irq, rstat) {
		got[m.Name] = m.Value
	}
	if got["irqsoff_worst_us"] != 900 || got["irqsoff_window_p50_us"] != 200 || got["irqsoff_rstat_windows_pct"] != 50 {
		t.Fatalf("%v", got)
	}
	if len(IrqsoffMetrics(irq, nil)) != 2 || IrqsoffMetrics(nil, rstat) != nil {
		t.Fatal("held-by metric only when asked; none without a tracer result")
	}
}

func TestRunSamplesAndRunsPeriodicTasks(t *testing.T) {
	dir := t.TempDir()
	for f, v := range map[string]string{"available_tracers": "irqsoff nop", "tracing_on": "0", "current_tracer": "nop", "tracing_max_latency": "0", "trace": ""} {
		os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644)
	}
	calls := 0
	res, err := Run(context.Background(), ftrace.FS{Root: dir}, 300*time.Millisecond, 100*time.Millisecond,
		func(ctx context.Context) { <-ctx.Done() },
		Every(20*time.Millisecond, func() error { calls++; return nil }), Every(time.Second, nil))
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Fatal("the periodic task never ran")
	}
	// At least the final window is always sampled.
	if res.Irqsoff == nil || len(res.Irqsoff.Windows) == 0 {
		t.Fatalf("no window sampled: %+v", res.Irqsoff)
	}
	if v, _ := os.ReadFile(filepath.Join(dir, "current_tracer")); string(v) != "nop" {
		t.Fatalf("tracer left as %q", v)
	}
	if err := ValidateTiming("w", time.Second, time.Minute); err == nil {
		t.Fatal("window longer than the run accepted")
	}
}

// RunPhases runs the body untraced first, with the tracer off, then
// traced with it on, and tells the body which half it is in.
func TestRunPhasesTracesOnlyTheSecondHalf(t *testing.T) {
	dir := t.TempDir()
	for f, v := range map[string]string{"available_tracers": "irqsoff nop", "tracing_on": "0", "current_tracer": "nop", "tracing_max_latency": "0", "trace": ""} {
		os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644)
	}
	var halves []bool
	var tracerSeen []string
	ph, err := RunPhases(context.Background(), ftrace.FS{Root: dir}, 400*time.Millisecond, 100*time.Millisecond, func(ctx context.Context, traced bool) {
		halves = append(halves, traced)
		v, _ := os.ReadFile(filepath.Join(dir, "current_tracer"))
		tracerSeen = append(tracerSeen, string(v))
		<-ctx.Done()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(halves) != 2 || halves[0] || !halves[1] {
		t.Fatalf("halves %v", halves)
	}
	if tracerSeen[0] != "nop" || tracerSeen[1] != "irqsoff" {
		t.Fatalf("tracer during the halves: %q", tracerSeen)
	}
	if ph.Untraced < 150*time.Millisecond || ph.Traced == nil || ph.Traced.Irqsoff == nil {
		t.Fatalf("phases %+v", ph)
	}
	if err := ValidateTiming("w", 2*time.Second, 1500*time.Millisecond); err == nil {
		t.Fatal("a window longer than the traced half accepted")
	}
}

// A workload's document holds both phases' time, the traced phase's
// irqs-off result, and its own metrics followed by the irqs-off ones.
func TestPhasesDocument(t *testing.T) {
	irq := &agentproto.Irqsoff{Worst: &agentproto.Section{LatencyUS: 50}, Windows: []agentproto.Section{{LatencyUS: 50}}}
	ph := &Phases{Untraced: 2 * time.Second, Traced: &Result{Elapsed: 3 * time.Second, Irqsoff: irq}}
	doc := ph.Document("w", map[string]string{"k": "v"}, []agentproto.Metric{{Name: "own", Value: 1}})
	if doc.Workload != "w" || doc.Params["k"] != "v" || doc.DurationSec != 5 || doc.Irqsoff != irq {
		t.Fatalf("document %+v", doc)
	}
	if len(doc.Metrics) != 1+len(IrqsoffMetrics(irq, nil)) || doc.Metrics[0].Name != "own" || doc.Metrics[1].Name != "irqsoff_worst_us" {
		t.Fatalf("metrics %+v", doc.Metrics)
	}
}

// ValidateParams checks the declared bounds first, then the window
// against the duration, each error naming the workload.
func TestValidateParams(t *testing.T) {
	declare := func(n *int, d, w *time.Duration) func(fs *flag.FlagSet) {
		return func(fs *flag.FlagSet) {
			param.IntVar(fs, n, "n", 1, 1, 4, "n")
			TimingFlags(fs, d, w)
		}
	}
	n, d, w := 9, 10*time.Second, time.Second
	if err := ValidateParams("w", declare(&n, &d, &w), d, w); err == nil || !strings.HasPrefix(err.Error(), "w: n=9") {
		t.Fatalf("out of bounds: %v", err)
	}
	n, w = 2, 6*time.Second
	if err := ValidateParams("w", declare(&n, &d, &w), d, w); err == nil || !strings.Contains(err.Error(), "traced half") {
		t.Fatalf("window over half: %v", err)
	}
	w = time.Second
	if err := ValidateParams("w", declare(&n, &d, &w), d, w); err != nil {
		t.Fatal(err)
	}
}
