package pipeline

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

// The progress line tells known failures from new ones at once.
func TestSelftestSummary(t *testing.T) {
	known := map[string]compare.KnownFailure{
		"test_kmem/test_kmem_basic": {Reason: "no slab accounting", Kernels: []string{"6.12"}},
		"test_cpu/test_cpucg_max":   {Reason: "TCG timing", Flaky: true},
	}
	st := func(key, outcome string) agentproto.SelftestResult {
		binary, name, _ := strings.Cut(key, "/")
		return agentproto.SelftestResult{Binary: binary, Name: name, Outcome: outcome}
	}
	for _, tc := range []struct {
		name string
		in   []agentproto.SelftestResult
		want string
	}{
		{"all pass", []agentproto.SelftestResult{st("test_core/a", agentproto.SelftestPass), st("test_core/b", agentproto.SelftestSkip)},
			"selftests=2 (0 not passing)"},
		{"known only", []agentproto.SelftestResult{st("test_kmem/test_kmem_basic", agentproto.SelftestFail), st("test_cpu/test_cpucg_max", agentproto.SelftestFail), st("test_core/a", agentproto.SelftestPass)},
			"selftests=3 (2 not passing, all known)"},
		{"one new", []agentproto.SelftestResult{st("test_kmem/test_kmem_basic", agentproto.SelftestFail), st("test_memcontrol/test_memcg_sock", agentproto.SelftestTimeout)},
			"selftests=2 (2 not passing, 1 unexplained: test_memcontrol/test_memcg_sock)"},
		{"flaky is not a failure", []agentproto.SelftestResult{st("test_memcontrol/test_memcg_sock", agentproto.SelftestFlaky), st("test_core/a", agentproto.SelftestPass)},
			"selftests=2 (0 not passing, 1 flaky: failed, then passed on a rerun)"},
		{"many new", []agentproto.SelftestResult{st("b/1", agentproto.SelftestFail), st("b/2", agentproto.SelftestError), st("b/3", agentproto.SelftestFail), st("b/4", agentproto.SelftestFail)},
			"selftests=4 (4 not passing, 4 unexplained: b/1 b/2 b/3 ...)"},
	} {
		if got := selftestSummary(tc.in, known, "6.12.118", "host"); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	// Diagnosed on 6.12 only: on 6.1 the same failure is unexplained.
	in := []agentproto.SelftestResult{st("test_kmem/test_kmem_basic", agentproto.SelftestFail)}
	if got, want := selftestSummary(in, known, "6.1.192", "host"), "selftests=1 (1 not passing, 1 unexplained: test_kmem/test_kmem_basic)"; got != want {
		t.Errorf("on 6.1:\n got %q\nwant %q", got, want)
	}
}

// A cell's progress line keeps a small figure's digits: hackbench's
// seconds in the guest (two boots of one kernel, from its first boots
// under TCG) read 10.0 and 8.4, not 10 and 8, and a sub-second figure
// is not rounded to 0. Large figures read as before.
func TestSummaryLineKeepsSmallFiguresDigits(t *testing.T) {
	cell := func(time, worst float64) *results.Result {
		return &results.Result{Status: results.StatusOK, IrqsoffHolder: "handle_softirqs", Metrics: []agentproto.Metric{
			{Name: "hackbench_time_s", Unit: "s", Direction: agentproto.LowerIsBetter, Value: time},
			{Name: "irqsoff_worst_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: worst},
			{Name: "irqsoff_window_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 10016},
		}}
	}
	for _, tc := range []struct {
		r    *results.Result
		want string
	}{
		{cell(10.023, 106622), " hackbench_time_s=10.0 irqsoff_window_p50_us=10016 irqsoff_worst_us=106622 worst held by handle_softirqs"},
		{cell(8.397, 67092), " hackbench_time_s=8.4 irqsoff_window_p50_us=10016 irqsoff_worst_us=67092 worst held by handle_softirqs"},
		{cell(0.146, 420), " hackbench_time_s=0.146 irqsoff_window_p50_us=10016 irqsoff_worst_us=420 worst held by handle_softirqs"},
	} {
		if got := SummaryLine(tc.r); got != tc.want {
			t.Errorf("SummaryLine = %q\nwant          %q", got, tc.want)
		}
	}
}
