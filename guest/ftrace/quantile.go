package ftrace

import (
	"sort"

	"github.com/kregress/kregress/guest/agentproto"
)

// Summarise returns count, p50, p99 and max of hold times (microseconds).
func Summarise(lock string, holds []float64) *agentproto.LockHolds {
	res := &agentproto.LockHolds{Lock: lock, Count: int64(len(holds))}
	if len(holds) == 0 {
		return res
	}
	s := append([]float64(nil), holds...)
	sort.Float64s(s)
	res.P50US = Quantile(s, 0.50)
	res.P99US = Quantile(s, 0.99)
	res.MaxUS = s[len(s)-1]
	return res
}

// Quantile returns the q-quantile of sorted values (nearest rank).
func Quantile(sorted []float64, q float64) float64 {
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
