package stats

import (
	"math"
	"testing"
)

// Median and UpperMedian agree but for an even count, where Median
// takes the mean of the two middle values and UpperMedian the upper one.
func TestMedians(t *testing.T) {
	for _, c := range []struct {
		in            []float64
		median, upper float64
	}{{[]float64{3, 1, 2}, 2, 2}, {[]float64{4, 1, 3, 2}, 2.5, 3}, {[]float64{7}, 7, 7}, {[]float64{2.5, 1.5}, 2, 2.5}} {
		in := append([]float64(nil), c.in...)
		if got := Median(c.in); got != c.median {
			t.Errorf("Median(%v) = %g, want %g", in, got, c.median)
		}
		if got := UpperMedian(c.in); got != c.upper {
			t.Errorf("UpperMedian(%v) = %g, want %g", in, got, c.upper)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Fatalf("a median changed its input: %v, was %v", c.in, in)
			}
		}
	}
	if !math.IsNaN(Median(nil)) || !math.IsNaN(UpperMedian(nil)) {
		t.Error("a median of nothing is not NaN")
	}
}

func TestQuantiles(t *testing.T) {
	s := []float64{10, 20, 30, 40}
	for _, c := range []struct {
		q              float64
		interp, nearer float64
	}{{0, 10, 10}, {0.25, 17.5, 10}, {0.5, 25, 20}, {0.75, 32.5, 30}, {0.99, 39.7, 40}, {1, 40, 40}} {
		if got := Quantile(s, c.q); math.Abs(got-c.interp) > 1e-9 {
			t.Errorf("Quantile(%v, %g) = %g, want %g", s, c.q, got, c.interp)
		}
		if got := NearestRank(s, c.q); got != c.nearer {
			t.Errorf("NearestRank(%v, %g) = %g, want %g", s, c.q, got, c.nearer)
		}
	}
	if Quantile(nil, 0.5) != 0 || NearestRank(nil, 0.5) != 0 {
		t.Error("a quantile of nothing is not 0")
	}
}

func TestLogChoose(t *testing.T) {
	for _, c := range []struct{ n, k, want int }{{5, 2, 10}, {10, 0, 1}, {10, 10, 1}, {20, 10, 184756}} {
		if got := math.Exp(LogChoose(c.n, c.k)); math.Abs(got-float64(c.want)) > 1e-6*float64(c.want) {
			t.Errorf("exp(LogChoose(%d, %d)) = %g, want %d", c.n, c.k, got, c.want)
		}
	}
	if !math.IsInf(LogChoose(3, 4), -1) || !math.IsInf(LogChoose(3, -1), -1) {
		t.Error("k outside 0..n is not -Inf")
	}
}
