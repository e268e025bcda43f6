package bisect

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

func cell(variant string, status results.Status, value float64, selftests ...string) *results.Result {
	r := &results.Result{Variant: variant, Status: status}
	if status == results.StatusOK {
		r.Metrics = []agentproto.Metric{{Name: "m", Value: value}}
	}
	for i := 0; i+1 < len(selftests); i += 2 {
		bin, name, _ := strings.Cut(selftests[i], "/")
		r.Selftests = append(r.Selftests, agentproto.SelftestResult{Binary: bin, Name: name, Outcome: selftests[i+1]})
	}
	return r
}

// TestTallyCrashModeCountsTheGate: in crash mode a cell that fails a
// selftest the good endpoint never fails counts as failing, as a crash
// does; a test the good endpoint fails too does not; outside crash mode
// the gate does not count.
func TestTallyCrashModeCountsTheGate(t *testing.T) {
	rs := []*results.Result{
		cell(goodVariant, results.StatusOK, 1, "t/known", "fail", "t/a", "pass"),
		cell(badVariant, results.StatusOK, 2, "t/known", "fail", "t/a", "fail"),
		cell(stepVariant, results.StatusOK, 1, "t/known", "fail", "t/a", "pass"),
		cell(stepVariant, results.StatusOK, 1, "t/known", "fail", "t/a", "fail"),
		cell(stepVariant, results.StatusCrashed, 0),
	}
	s, err := tally(rs, "m", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Crashed != 2 || s.BadCrashed != 1 || s.GoodCrashed != 0 || len(s.Step) != 1 {
		t.Fatalf("crash mode: %+v", s)
	}
	s, err = tally(rs, "m", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Crashed != 1 || s.BadCrashed != 0 || len(s.Step) != 2 || len(s.Bad) != 1 {
		t.Fatalf("metric mode: %+v", s)
	}
	// A metric the workload does not produce names those it does.
	var um *UnknownMetricError
	if _, err := tally(rs, "nosuch", false, nil); !errors.As(err, &um) || !strings.Contains(err.Error(), "it produces: m") {
		t.Fatalf("unknown metric: %v", err)
	}
	// An endpoint kernel that fails twice outside crash mode is an error
	// naming it; one failed boot (a guest late to offer SSH) is set aside.
	if _, err := tally(append(rs, cell(badVariant, results.StatusCrashed, 0)), "m", false, nil); err != nil {
		t.Fatalf("one failed boot of an endpoint outside crash mode stops the bisect: %v", err)
	}
	if _, err := tally(append(rs, cell(badVariant, results.StatusCrashed, 0), cell(badVariant, results.StatusTimeout, 0)), "m", false, nil); err == nil || !strings.Contains(err.Error(), "bad endpoint's kernel failed in 2 cells") {
		t.Fatalf("endpoint failing twice outside crash mode: %v", err)
	}
	// A NaN or infinite figure is refused, naming the metric.
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := tally([]*results.Result{cell(goodVariant, results.StatusOK, v)}, "m", false, nil); err == nil || !strings.Contains(err.Error(), "metric m is") {
			t.Fatalf("figure %v: %v", v, err)
		}
	}
}
