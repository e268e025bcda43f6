package compare

import (
	"math"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
)

// SeenBeyondMargin: a seen change worse by the margin (1.5x: +50% for a
// lower-is-better metric, -33.3% for a higher-is-better one), or by the
// noise floor when larger; never an improvement, an unseen change or a
// margin turned off.
func TestSeenBeyondMargin(t *testing.T) {
	m := func(dir agentproto.Direction, base, cand float64, seen string) *Metric {
		return &Metric{Name: "x", Direction: dir, Base: Summary{Median: base}, Cand: Summary{Median: cand}, DeltaPct: (cand - base) / math.Abs(base) * 100, Seen: seen}
	}
	o := Options{}.withDefaults()
	floor := Options{NoiseFloorPct: map[string]float64{"x": 120}}.withDefaults()
	off := Options{RuleOut: math.Inf(1)}.withDefaults()
	for _, tc := range []struct {
		name string
		m    *Metric
		o    Options
		want bool
	}{
		{"2x slower", m(agentproto.LowerIsBetter, 100, 200, "s"), o, true},
		{"1.5x slower, the margin itself", m(agentproto.LowerIsBetter, 2, 3, "s"), o, true},
		{"1.4x slower", m(agentproto.LowerIsBetter, 100, 140, "s"), o, false},
		{"2x slower, not seen", m(agentproto.LowerIsBetter, 100, 200, ""), o, false},
		{"2x faster", m(agentproto.LowerIsBetter, 200, 100, "s"), o, false},
		{"half the throughput", m(agentproto.HigherIsBetter, 100, 50, "s"), o, true},
		{"a third less throughput", m(agentproto.HigherIsBetter, 150, 100, "s"), o, true},
		{"a quarter less throughput", m(agentproto.HigherIsBetter, 100, 75, "s"), o, false},
		{"2x slower within a 120% floor", m(agentproto.LowerIsBetter, 100, 200, "s"), floor, false},
		{"2x slower, margin off", m(agentproto.LowerIsBetter, 100, 200, "s"), off, false},
		{"from 0", m(agentproto.LowerIsBetter, 0, 3, "s"), o, true},
	} {
		if got := SeenBeyondMargin(tc.m, tc.o); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
