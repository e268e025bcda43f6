package compare

import (
	"strings"
	"testing"
)

// TestTwoValuedMetricIsNotSeenByItsSpread: an irqs-off worst that reads
// one or two of QEMU's turns (about 4 or 8 ms) in every boot, three of
// five boots at 4 ms on one night and none on the next, is a mix of the
// same two values: the spread rule must not call it seen, while the same
// shift with a single boot left behind still is.
func TestTwoValuedMetricIsNotSeenByItsSpread(t *testing.T) {
	night1 := []float64{4074, 4071, 7143, 8038, 4066}
	night2 := []float64{8003, 7999, 8043, 8008, 7989}
	m := Metric{Base: Summary{Values: night1, Median: 4074}, Cand: Summary{Values: night2, Median: 8003}, P: 0.056, Alpha: 0.01}
	if why := seen(&m); why != "" {
		t.Errorf("two nights mixing 4 and 8 ms: seen (%s), want not", why)
	}
	oneLeft := []float64{4074, 4071, 4080, 8038, 4066}
	m.Base = Summary{Values: oneLeft, Median: 4074}
	if why := seen(&m); !strings.Contains(why, "robust spreads") {
		t.Errorf("every boot moved but one: seen %q, want by the spread rule", why)
	}
}
