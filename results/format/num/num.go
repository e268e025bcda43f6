// Package num is how a figure reads in every output: a number with as
// many digits as it deserves, a change in percent, a count of cell
// statuses. It is the one definition of each, below results/compare as
// well as results/format, because compare's own sentences (a regression's
// "reads_per_sec -10.0%", a baseline's "0 ok, 5 crashed") quote figures
// the way every table prints them.
package num

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kregress/kregress/results"
)

// Number renders a figure with as many digits as it deserves: 1.23M,
// 12345, 123, 12.3, 0.123.
func Number(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// Delta renders a change in percent, "+1.5%"; "~" when there is none to
// speak of (both sides 0, NaN), "from 0 to >0" (or <0) when the baseline
// was 0 and a percentage means nothing.
func Delta(pct float64) string {
	switch {
	case math.IsNaN(pct):
		return "~"
	case math.IsInf(pct, 1):
		return "from 0 to >0"
	case math.IsInf(pct, -1):
		return "from 0 to <0"
	}
	return fmt.Sprintf("%+.1f%%", pct)
}

// DeltaQuiet is Delta for an output that states no change from 0 at all:
// "~" for an infinite change too (a bisect's endpoints, a nightly's
// shifts, whose medians are quoted beside it).
func DeltaQuiet(pct float64) string {
	if math.IsInf(pct, 0) {
		return "~"
	}
	return Delta(pct)
}

// Statuses renders cell status counts as "1 crashed, 5 ok", in the
// statuses' order.
func Statuses(st map[results.Status]int) string {
	var keys []results.Status
	for k := range st {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", st[k], k))
	}
	return strings.Join(parts, ", ")
}
