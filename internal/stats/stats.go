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
