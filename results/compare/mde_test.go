package compare

import (
	"math"
	"testing"
)

// The detectable change shrinks as the samples grow and is +Inf when the
// test cannot reach its level at all.
func TestDetectablePct(t *testing.T) {
	vals := func(n int, base float64) []float64 {
		var xs []float64
		for i := 0; i < n; i++ {
			xs = append(xs, base*(1+0.1*float64(i%3-1)))
		}
		return xs
	}
	m := func(n int) *Metric {
		return &Metric{Base: Summary{N: n, Values: vals(n, 100)}, Cand: Summary{N: n, Values: vals(n, 150)}, Family: 1, Alpha: 0.05}
	}
	small, large := DetectablePct(m(5)), DetectablePct(m(20))
	if !(large < small) || math.IsInf(small, 0) || small <= 0 {
		t.Fatalf("MDE at n=5+5 %.1f%%, at n=20+20 %.1f%%: want finite, positive, and smaller with more boots", small, large)
	}
	if got := DetectablePct(m(2)); !math.IsInf(got, 1) {
		t.Fatalf("n=2+2 cannot reach p < 0.05: MDE %v, want +Inf", got)
	}
}
