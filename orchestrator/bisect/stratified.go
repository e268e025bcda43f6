package bisect

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/kregress/kregress/internal/stats"
)

// A stratified rank test: the step's boots are compared only with the
// endpoint boots of the same look (a stratum), never with boots of other
// looks, so a host that is 2% slower in one look than in another cannot
// make a step look like the other endpoint. The statistic is the sum over
// looks of the step's (mid)rank sum within its look - a Wilcoxon
// stratified by look with equal weights per boot (van Elteren weights
// each look by 1/(N+1); with looks of equal size the two are the same
// test, and equal weights keep the null distribution on integers, so it
// is computed exactly). Under "step and endpoint are the same kernel" the
// labels are exchangeable within each look, whatever the look's drift,
// so the p-value below is exact (permutation within looks), ties
// included.

// exactLimit bounds the combined size of one look for the exact
// distribution; bigger looks use the normal approximation (with ties
// corrected), which is accurate there.
const exactLimit = 60

// rankStat is one look's doubled rank sum of x within x+y (midranks for
// ties, doubled so that they are integers) and the doubled scores of all
// its boots.
type rankStat struct {
	w2     int   // 2 * rank sum of x
	n      int   // len(x)
	scores []int // 2 * midrank of every boot of the look
	ties   bool
}

func ranks(x, y []float64) rankStat {
	type v struct {
		val float64
		isX bool
	}
	all := make([]v, 0, len(x)+len(y))
	for _, a := range x {
		all = append(all, v{a, true})
	}
	for _, b := range y {
		all = append(all, v{b, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].val < all[j].val })
	st := rankStat{n: len(x), scores: make([]int, len(all))}
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].val == all[i].val {
			j++
		}
		// Ranks i+1..j share the midrank (i+1+j)/2; doubled: i+1+j.
		if j-i > 1 {
			st.ties = true
		}
		for k := i; k < j; k++ {
			st.scores[k] = i + 1 + j
			if all[k].isX {
				st.w2 += i + 1 + j
			}
		}
		i = j
	}
	return st
}

// dist is a probability distribution on integers off, off+1, ...
type dist struct {
	off int
	p   []float64
}

var noTieCache sync.Map // [2]int{n, N} -> dist

// rankSumDist is the null distribution of the doubled rank sum of n boots
// drawn without replacement from the look's scores.
func rankSumDist(st rankStat) dist {
	N := len(st.scores)
	if !st.ties {
		if d, ok := noTieCache.Load([2]int{st.n, N}); ok {
			return d.(dist)
		}
	}
	max := 0
	for _, s := range st.scores {
		max += s
	}
	// f[j][s]: ways to pick j of the scores seen so far summing to s,
	// as probabilities of the uniform choice (scaled at the end).
	f := make([][]float64, st.n+1)
	for j := range f {
		f[j] = make([]float64, max+1)
	}
	f[0][0] = 1
	for i, sc := range st.scores {
		hi := i + 1
		if hi > st.n {
			hi = st.n
		}
		for j := hi; j >= 1; j-- {
			row, prev := f[j], f[j-1]
			for s := max; s >= sc; s-- {
				row[s] += prev[s-sc]
			}
		}
	}
	total := 0.0
	for _, c := range f[st.n] {
		total += c
	}
	d := dist{p: make([]float64, max+1)}
	for s, c := range f[st.n] {
		d.p[s] = c / total
	}
	if !st.ties {
		noTieCache.Store([2]int{st.n, N}, d)
	}
	return d
}

func convolve(a, b dist) dist {
	out := dist{off: a.off + b.off, p: make([]float64, len(a.p)+len(b.p)-1)}
	for i, x := range a.p {
		if x == 0 {
			continue
		}
		for j, y := range b.p {
			out.p[i+j] += x * y
		}
	}
	return out
}

// Stratum is one look's two samples: the step's and an endpoint's.
type Stratum struct{ X, Y []float64 }

// stratifiedP is the one-sided p-value that X tends to be larger than Y
// (greater) or smaller (!greater), stratified by look: P(T >= t) or
// P(T <= t) for T the sum over looks of X's doubled rank sum. Looks
// missing either sample carry no information and are left out. It
// returns 1 when no look has both.
func stratifiedP(strata []Stratum, greater bool) float64 {
	var sts []rankStat
	exact := true
	for _, s := range strata {
		if len(s.X) == 0 || len(s.Y) == 0 {
			continue
		}
		st := ranks(s.X, s.Y)
		sts = append(sts, st)
		if len(st.scores) > exactLimit {
			exact = false
		}
	}
	if len(sts) == 0 {
		return 1
	}
	t := 0
	for _, st := range sts {
		t += st.w2
	}
	if !exact {
		return normalP(sts, t, greater)
	}
	d := nullDist(sts)
	if greater {
		return tailGE(d, t)
	}
	return tailLE(d, t)
}

var convCache sync.Map // string of the looks' sizes -> dist (no ties)

// nullDist is the exact null distribution of the sum of the looks'
// doubled rank sums; without ties it depends only on the looks' sizes and
// is kept (a bisect and its power simulations ask for the same few).
func nullDist(sts []rankStat) dist {
	key, ties := "", false
	for _, st := range sts {
		key += fmt.Sprintf("%d/%d,", st.n, len(st.scores))
		ties = ties || st.ties
	}
	if !ties {
		if d, ok := convCache.Load(key); ok {
			return d.(dist)
		}
	}
	d := dist{p: []float64{1}}
	for _, st := range sts {
		d = convolve(d, rankSumDist(st))
	}
	if !ties {
		convCache.Store(key, d)
	}
	return d
}

func tailGE(d dist, t int) float64 {
	p := 0.0
	for i := len(d.p) - 1; i >= 0 && d.off+i >= t; i-- {
		p += d.p[i]
	}
	return math.Min(1, p)
}

func tailLE(d dist, t int) float64 {
	p := 0.0
	for i := 0; i < len(d.p) && d.off+i <= t; i++ {
		p += d.p[i]
	}
	return math.Min(1, p)
}

// normalP: the normal approximation of the stratified rank sum with the
// tie-corrected variance and a continuity correction.
func normalP(sts []rankStat, t int, greater bool) float64 {
	mean, varr := 0.0, 0.0
	for _, st := range sts {
		N := float64(len(st.scores))
		n := float64(st.n)
		sum, sum2 := 0.0, 0.0
		for _, s := range st.scores {
			sum += float64(s)
			sum2 += float64(s) * float64(s)
		}
		mu := sum / N
		mean += n * mu
		// Sampling n without replacement from the scores.
		pop := sum2/N - mu*mu
		if N > 1 {
			varr += n * (N - n) / (N - 1) * pop
		}
	}
	if varr == 0 {
		return 1
	}
	z := (float64(t) - mean) / math.Sqrt(varr)
	cc := 1 / math.Sqrt(varr) // half a unit of rank sum is one doubled unit
	if greater {
		return 1 - normCDF(z-cc)
	}
	return normCDF(z + cc)
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// smallestP is the smallest one-sided p the stratified test can give
// with looks of n step boots against m endpoint boots each (complete
// separation in every look, no ties): the product over looks of
// 1 / C(n+m, n).
func smallestP(looks [][2]int) float64 {
	lp := 0.0
	for _, l := range looks {
		lp -= stats.LogChoose(l[0]+l[1], l[0])
	}
	return math.Exp(lp)
}
