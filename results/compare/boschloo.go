package compare

import (
	"math"

	"github.com/kregress/kregress/internal/stats"
)

// Boschloo's exact test for two failure counts: the statistic is Fisher's
// one-sided p, and its p-value is the largest probability, over every
// common failure rate pi both sides might share, of a table at least as
// extreme (Fisher p no larger). It is exact (its false-alarm rate is at
// most alpha whatever pi is) and uniformly more powerful than Fisher's
// test, which conditions on the total number of failures and so is
// conservative at a few cells: at 8+8 cells, a candidate failing in 50% of
// cells against none is found in 86% of comparisons instead of 64%, and
// with the same 30% rate on both sides it calls a regression in 4.1% of
// comparisons (Fisher 1.4%), at alpha 0.05 (exact figures, by enumeration
// of every table; see TestBoschlooLevelAndPower).

// boschlooGrid is how finely the common rate pi is searched before the
// best point is refined: the tail probability is a polynomial in pi of
// degree n1+n2, smooth at this step for the cell counts kregress sees.
const boschlooGrid = 1000

// boschlooMaxTables bounds the work: beyond this many tables
// ((n1+1)*(n2+1), e.g. 200 cells a side) Fisher's test is used instead,
// which is exact too, only less powerful.
const boschlooMaxTables = 40000

// boschlooOneSided is Boschloo's one-sided p-value that the first group's
// failure rate (a of n1) is higher than the second's (b of n2); ok is
// false when the tables are too many and Fisher's p is returned instead.
func boschlooOneSided(a, n1, b, n2 int) (p float64, ok bool) {
	obs := fisherOneSided(a, n1, b, n2)
	if obs >= 1 {
		return 1, true
	}
	if (n1+1)*(n2+1) > boschlooMaxTables {
		return obs, false
	}
	// The tables at least as extreme as the one observed. Fisher's p of
	// equal tables can differ in the last bits: a relative tolerance.
	type table struct{ x, y int }
	var extreme []table
	for x := 0; x <= n1; x++ {
		for y := 0; y <= n2; y++ {
			if fisherOneSided(x, n1, y, n2) <= obs*(1+1e-9) {
				extreme = append(extreme, table{x, y})
			}
		}
	}
	lc1, lc2 := logChooses(n1), logChooses(n2)
	tail := func(pi float64) float64 {
		if pi <= 0 || pi >= 1 {
			// All or nothing fails: only the table with every cell
			// failed (or none) has a probability.
			s := 0.0
			for _, t := range extreme {
				if (pi <= 0 && t.x == 0 && t.y == 0) || (pi >= 1 && t.x == n1 && t.y == n2) {
					s++
				}
			}
			return s
		}
		lp, lq := math.Log(pi), math.Log1p(-pi)
		s := 0.0
		for _, t := range extreme {
			s += math.Exp(lc1[t.x] + lc2[t.y] + float64(t.x+t.y)*lp + float64(n1+n2-t.x-t.y)*lq)
		}
		return s
	}
	best, at := 0.0, 0.0
	for i := 0; i <= boschlooGrid; i++ {
		pi := float64(i) / boschlooGrid
		if v := tail(pi); v > best {
			best, at = v, pi
		}
	}
	// Refine the maximum between the grid's neighbours of the best point
	// (golden-section search): the grid alone could miss a little of it,
	// and a p too small would raise the false-alarm rate.
	lo, hi := math.Max(at-1.0/boschlooGrid, 0), math.Min(at+1.0/boschlooGrid, 1)
	const g = 0.6180339887498949
	for i := 0; i < 40; i++ {
		m1, m2 := hi-g*(hi-lo), lo+g*(hi-lo)
		if tail(m1) < tail(m2) {
			lo = m1
		} else {
			hi = m2
		}
	}
	best = math.Max(best, tail((lo+hi)/2))
	return math.Min(best, 1), true
}

// logChooses is log C(n, k) for k = 0..n.
func logChooses(n int) []float64 {
	out := make([]float64, n+1)
	for k := range out {
		out[k] = stats.LogChoose(n, k)
	}
	return out
}
