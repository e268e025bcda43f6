package bisect

import (
	"math"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/metrics"
	wl "github.com/kregress/kregress/guest/workload"
)

func TestParseReps(t *testing.T) {
	reps, err := ParseReps("4, 4,8")
	if err != nil || RepsString(reps) != "4,4,8" {
		t.Fatalf("4, 4,8: %v, %v", reps, err)
	}
	for _, bad := range []string{"", "0", "4,x", "101"} {
		if _, err := ParseReps(bad); err == nil || !strings.Contains(err.Error(), "1..100") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if RepsString(DefaultReps) == "" {
		t.Fatal("no default repetitions")
	}
}

// CheckFlags names the flag at fault: --alpha outside (0, 1), else the
// looks too small.
func TestCheckFlags(t *testing.T) {
	if err := CheckFlags(0.05, DefaultReps, false); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for _, a := range []float64{0, 1, -0.1, math.NaN()} {
		if err := CheckFlags(a, DefaultReps, false); err == nil || !strings.HasPrefix(err.Error(), "--alpha ") {
			t.Errorf("alpha %v: %v", a, err)
		}
	}
	if err := CheckFlags(0.05, []int{1}, false); err == nil || !strings.HasPrefix(err.Error(), "--looks 1: ") {
		t.Errorf("one boot, one look: %v", err)
	}
}

func TestCheckMetricName(t *testing.T) {
	if err := CheckMetricName("rstat", wl.Metrics("rstat"), "rstat_lock_hold_p99_us"); err != nil {
		t.Fatal(err)
	}
	if err := CheckMetricName("rstat", wl.Metrics("rstat"), "nope"); err == nil || !strings.Contains(err.Error(), "kregress metrics rstat lists them") {
		t.Fatalf("an unknown metric: %v", err)
	}
	declared := []metrics.Spec{metrics.Define("fork_ns", "ns/op", metrics.Lower, "a benchmark's")}
	if err := CheckMetricName("benchmark", declared, "fork_ns"); err != nil {
		t.Fatalf("a benchmark's declared metric: %v", err)
	}
	if err := CheckMetricName("benchmark", declared, "rstat_lock_hold_p99_us"); err == nil || !strings.Contains(err.Error(), "lists them: fork_ns") {
		t.Fatalf("another workload's metric on a benchmark: %v", err)
	}
	if err := CheckMetricName("no-such-workload", nil, "nope"); err != nil {
		t.Fatalf("a workload guest/workload does not know is left to the run: %v", err)
	}
}
