package format

import (
	"fmt"
	"math"
	"strings"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format/num"
)

// Summary renders a sample as "median [lo, hi]", the median alone when
// its interval is empty or could not be computed, "-" when there is no
// sample.
func Summary(s compare.Summary) string {
	if s.N == 0 {
		return "-"
	}
	if s.Lo == s.Hi || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || math.IsNaN(s.Lo) {
		return num.Number(s.Median)
	}
	return fmt.Sprintf("%s [%s, %s]", num.Number(s.Median), num.Number(s.Lo), num.Number(s.Hi))
}

// Holders renders the first n holders with their shares, "f 80%, g 20%",
// and how many more there are.
func Holders(hs []compare.Holder, n int) string {
	if len(hs) == 0 {
		return "(no section recorded)"
	}
	var parts []string
	for i, h := range hs {
		if i == n {
			parts = append(parts, fmt.Sprintf("+%d more", len(hs)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", h.Name, h.Share*100))
	}
	return strings.Join(parts, ", ")
}

// valueRange renders the smallest and largest value, "lo..hi".
func valueRange(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return num.Number(lo) + ".." + num.Number(hi)
}
