package ftrace

import (
	"sort"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/stats"
)

// Summarise returns count, p50, p99 and max of hold times (microseconds).
func Summarise(lock string, holds []float64) *agentproto.LockHolds {
	res := &agentproto.LockHolds{Lock: lock, Count: int64(len(holds))}
	if len(holds) == 0 {
		return res
	}
	s := append([]float64(nil), holds...)
	sort.Float64s(s)
	res.P50US = stats.NearestRank(s, 0.50)
	res.P99US = stats.NearestRank(s, 0.99)
	res.MaxUS = s[len(s)-1]
	return res
}
