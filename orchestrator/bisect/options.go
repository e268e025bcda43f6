package bisect

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kregress/kregress/guest/metrics"
)

// ParseReps reads --looks: boots of each point per look, comma
// separated, each in 1..100.
func ParseReps(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 100 {
			return nil, fmt.Errorf("--looks %q: want comma-separated boot counts in 1..100", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// RepsString writes reps as --looks takes them.
func RepsString(reps []int) string {
	var s []string
	for _, r := range reps {
		s = append(s, strconv.Itoa(r))
	}
	return strings.Join(s, ",")
}

// CheckFlags is CheckOptions in the words of the flags: an alpha outside
// (0, 1) (an explicit 0 too), and looks too small for alpha, naming the
// boots that would do. Checked before anything builds, since either
// could only ever end "does not reproduce".
func CheckFlags(alpha float64, reps []int, crash bool) error {
	if err := CheckOptions(alpha, reps, crash); err != nil {
		if math.IsNaN(alpha) || alpha <= 0 || alpha >= 1 {
			return fmt.Errorf("--alpha %v: want a false-call rate in (0, 1), e.g. 0.05", alpha)
		}
		return fmt.Errorf("--looks %s: %w", RepsString(reps), err)
	}
	return nil
}

// CheckMetricName refuses, before anything builds, a --metric the
// experiment's workload does not report: specs, what kregress metrics -c
// lists (its descriptor's, guest/workload, or a benchmark's declared
// ones: config.Config.WorkloadMetrics); the bisect would measure both
// endpoints first. Without specs (an unknown workload) nothing is
// refused here.
func CheckMetricName(workload string, specs []metrics.Spec, metric string) error {
	if metric == "" || specs == nil {
		return nil
	}
	var known []string
	for _, s := range specs {
		if s.Name == metric {
			return nil
		}
		known = append(known, s.Name)
	}
	return fmt.Errorf("--metric %s: workload %s reports no such metric (kregress metrics %s lists them: %s)", metric, workload, workload, strings.Join(known, ", "))
}
