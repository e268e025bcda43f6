// Package stats holds the small summaries of samples that several of
// kregress's packages compute, defined once.
package stats

import (
	"math"
	"slices"
)

// Median is the median of v (the mean of the two middle values of an even
// count), NaN for no values. v is not changed.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// UpperMedian is the upper of v's two middle values for an even count,
// the middle value for an odd one: always one of the values, never a
// mean of two (results show's phase times, which name a boot's moment);
// NaN for no values. v is not changed.
func UpperMedian(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// Quantile is the q-quantile of sorted values (ascending), interpolated
// linearly between the two nearest order statistics (Hyndman and Fan's
// type 7, R's default); 0 for no values.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// NearestRank is the q-quantile of sorted values (ascending) by the
// nearest-rank rule: always one of the values, never between two (the
// guest's lock hold percentiles); 0 for no values.
func NearestRank(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// LogChoose is ln C(n, k), -Inf when k is outside 0..n.
func LogChoose(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
