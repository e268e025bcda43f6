// Package changepoint finds the points where a series' distribution
// shifts: E-Divisive means (Matteson & James, 2014), the detector of
// MongoDB's signal processing and Apache Otava, with binary segmentation
// and a permutation test for each candidate point. It is what finds a
// slow drift across nightly runs that no single night-to-night comparison
// shows, and names the night it happened.
package changepoint

import (
	"math"
	"math/rand/v2"
)

// Options tune the detector; the zero value is usable.
type Options struct {
	// Alpha is the significance of the family of series judged together
	// (default 0.05): each candidate point's permutation test is at
	// Alpha/Family.
	Alpha float64
	// Family is the number of series judged together (at least 1): a
	// night looks at every variant's every metric, and each at Alpha
	// would list some shift in most nights in which nothing changed.
	// With each series' tests at Alpha/Family (Bonferroni), a family of
	// unchanged series lists any shift with probability at most Alpha:
	// binary segmentation tests a series' inner points only after its
	// first one was found.
	Family int
	// Permutations per test at most (default: 199, or 10/level when
	// that is more, so that a p well below the level Alpha/Family can
	// be reached). A test stops early once stopAfter shuffles were as
	// strong as the point (Besag and Clifford's sequential p-value,
	// exact too): a series with no shift costs a few dozen shuffles.
	Permutations int
	// MinSize is the smallest segment on either side of a point
	// (default 3): a single odd night is an outlier, not a shift.
	MinSize int
	// Seed makes the permutations reproducible (0 is a seed too).
	Seed uint64
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if o.Family < 1 {
		o.Family = 1
	}
	if o.Permutations <= 0 {
		o.Permutations = max(199, int(math.Ceil(10/o.level()))-1)
	}
	if o.MinSize <= 0 {
		o.MinSize = 3
	}
	return o
}

// level is each permutation test's significance.
func (o Options) level() float64 { return o.Alpha / float64(max(o.Family, 1)) }

// stopAfter is how many shuffles as strong as the point end its test:
// p is then stopAfter/shuffles, at least stopAfter/Permutations.
const stopAfter = 10

// Point is a change point: the series is different from Index on.
type Point struct {
	Index int
	// P is the permutation test's p-value for this point within the
	// segment it was found in.
	P float64
	// Before and After are the means of the segments either side
	// (bounded by the neighbouring change points).
	Before, After float64
}

// Change is After relative to Before, in percent.
func (p Point) Change() float64 {
	if p.Before == 0 {
		return math.NaN()
	}
	return (p.After - p.Before) / math.Abs(p.Before) * 100
}

// Detect returns the change points of xs in increasing index order.
func Detect(xs []float64, opts Options) []Point {
	opts = opts.withDefaults()
	rng := rand.New(rand.NewPCG(opts.Seed, 0x636870)) // "chp"
	var idx []int
	var ps []float64
	var split func(lo, hi int)
	split = func(lo, hi int) {
		seg := xs[lo:hi]
		tau, q := best(seg, opts.MinSize)
		if tau < 0 {
			return
		}
		// Permutation test: how often does a shuffled segment have a
		// split as strong as the best one found?
		perm := append([]float64(nil), seg...)
		exceed, done := 0, 0
		for done < opts.Permutations && exceed < stopAfter {
			rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
			done++
			if _, qp := best(perm, opts.MinSize); qp >= q {
				exceed++
			}
		}
		p := float64(exceed+1) / float64(done+1)
		if exceed == stopAfter {
			p = float64(exceed) / float64(done)
		}
		if p >= opts.level() {
			return
		}
		idx = append(idx, lo+tau)
		ps = append(ps, p)
		split(lo, lo+tau)
		split(lo+tau, hi)
	}
	split(0, len(xs))
	// Sort by index (insertion order is depth-first) and fill the means.
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && idx[j] < idx[j-1]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	out := make([]Point, len(idx))
	for i, at := range idx {
		lo, hi := 0, len(xs)
		if i > 0 {
			lo = idx[i-1]
		}
		if i+1 < len(idx) {
			hi = idx[i+1]
		}
		out[i] = Point{Index: at, P: ps[i], Before: mean(xs[lo:at]), After: mean(xs[at:hi])}
	}
	return out
}

// best returns the split tau of xs maximising the E-divisive statistic
// Q(tau) = tau*m/n * (2*Sxy/(tau*m) - Sxx/C(tau,2) - Syy/C(m,2)), with
// m = n - tau and S the sums of absolute differences between and within
// the two sides; -1 when xs is too short to split.
func best(xs []float64, minSize int) (int, float64) {
	n := len(xs)
	if n < 2*minSize || minSize < 2 {
		return -1, 0
	}
	// Sums kept incrementally: moving tau right moves one point from Y
	// to X, an O(n) update.
	var total float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			total += math.Abs(xs[i] - xs[j])
		}
	}
	sxx, syy := 0.0, total
	bestTau, bestQ := -1, math.Inf(-1)
	for tau := 1; tau <= n-minSize; tau++ {
		k := tau - 1 // the point moving from Y to X
		for i := 0; i < k; i++ {
			sxx += math.Abs(xs[i] - xs[k])
		}
		for j := k + 1; j < n; j++ {
			syy -= math.Abs(xs[k] - xs[j])
		}
		if tau < minSize {
			continue
		}
		m := n - tau
		sxy := total - sxx - syy
		t, mf := float64(tau), float64(m)
		e := 2*sxy/(t*mf) - sxx/(t*(t-1)/2) - syy/(mf*(mf-1)/2)
		if q := t * mf / float64(n) * e; q > bestQ {
			bestTau, bestQ = tau, q
		}
	}
	return bestTau, bestQ
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
