package compare

import (
	"fmt"
	"math"
	"sort"

	"golang.org/x/perf/benchmath"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/stats"
)

// fisherOneSided is P(X >= a) for the count of failures in the first
// group, given both groups' sizes and the total number of failures
// (hypergeometric; Fisher's exact test, one-sided).
func fisherOneSided(a, n1, b, n2 int) float64 {
	k, n := a+b, n1+n2
	p := 0.0
	for x := a; x <= min(k, n1); x++ {
		p += math.Exp(stats.LogChoose(k, x) + stats.LogChoose(n-k, n1-x) - stats.LogChoose(n, n1))
	}
	return math.Min(p, 1)
}

// MinMannWhitneyP is the smallest two-sided p-value the Mann-Whitney U
// test can give with samples of n1 and n2 (complete separation, no ties):
// 2 / C(n1+n2, n1). When it is above alpha no change can be significant.
func MinMannWhitneyP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	return math.Min(1, 2*math.Exp(-stats.LogChoose(n1+n2, n1)))
}

// adjustBH sets Q on every judged metric of ms: Benjamini-Hochberg
// adjusted p-values, within the primary metrics and within the rest
// separately (the experiment's primary metrics are not diluted by the many
// secondary ones).
func adjustBH(ms []*Metric) {
	for _, primary := range []bool{true, false} {
		var fam []*Metric
		for _, m := range ms {
			if m.Direction != agentproto.Informational && m.Primary == primary && !math.IsNaN(m.P) {
				fam = append(fam, m)
			}
		}
		ps := make([]float64, len(fam))
		for j, m := range fam {
			ps[j] = m.P
		}
		for j, q := range benjaminiHochberg(ps) {
			fam[j].Q = q
			fam[j].Family = len(fam)
		}
		// The smallest q one metric changing alone could reach: the
		// smallest possible p times the family's size (several changing
		// together can still reach alpha, so this is about one metric).
		for _, m := range fam {
			if minQ := MinMannWhitneyP(m.Base.N, m.Cand.N) * float64(len(fam)); minQ > m.Alpha && MinMannWhitneyP(m.Base.N, m.Cand.N) <= m.Alpha {
				kind := "metrics"
				if primary {
					kind = "primary metrics"
				}
				m.Warnings = append(m.Warnings, fmt.Sprintf("%d %s are judged together (every candidate's), so with %d vs %d samples one metric changing alone reaches q %.3f at best > alpha %.2f: no single metric can reach alpha (it is unjudged unless several change together); run more repetitions or name fewer primary_metrics", len(fam), kind, m.Base.N, m.Cand.N, minQ, m.Alpha))
			}
		}
	}
}

// benjaminiHochberg returns the adjusted p-values (q) of ps, in ps's
// order: q_(i) = min over j >= i of p_(j) * m / j, capped at 1.
func benjaminiHochberg(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ps[order[a]] < ps[order[b]] })
	q := make([]float64, m)
	running := 1.0
	for r := m - 1; r >= 0; r-- {
		i := order[r]
		v := ps[i] * float64(m) / float64(r+1)
		running = math.Min(running, v)
		q[i] = math.Min(running, 1)
	}
	return q
}

// MannWhitneyP is the two-sided Mann-Whitney U p-value of samples a and
// b, computed as the diff computes it (golang.org/x/perf/benchmath); NaN
// when a value is NaN or infinite, which go-moremath's test would
// otherwise chase with allocations without bound.
func MannWhitneyP(a, b []float64) float64 {
	for _, v := range append(append([]float64(nil), a...), b...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.NaN()
		}
	}
	th := benchmath.DefaultThresholds
	sa := benchmath.NewSample(append([]float64(nil), a...), &th)
	sb := benchmath.NewSample(append([]float64(nil), b...), &th)
	return benchmath.AssumeNothing.Compare(sa, sb).P
}
