package compare

import (
	"math"
	"math/rand"
	"sync"

	"github.com/aclements/go-moremath/stats"
)

// Power is what a comparison could have seen: the smallest change of a
// metric that its test, at its sample sizes, its spread and inside its
// false-discovery family, finds with the given power. It is computed by
// simulating the exact test the diff runs (the two-sided Mann-Whitney U of
// go-moremath, exact below 51 samples per side), not by the asymptotic z
// formula, which overstates power at small n (56/73/76% actual power at
// n = 5/8/16 for a claimed 80%).
type PowerSpec struct {
	N1, N2 int
	// Sigma is the spread between boots: the standard deviation of the
	// log values (Log) or of the values relative to the baseline's mean
	// (!Log).
	Sigma float64
	Log   bool
	// Family is the number of metrics judged together with this one. One
	// change among Family-1 unchanged metrics is called when its p is at
	// most Alpha/Family: Benjamini-Hochberg's q of the smallest p is at
	// most p*Family, so this bound makes the stated change conservative.
	Family int
	Alpha  float64
	Power  float64 // default 0.8
	Trials int     // default 1000
	Seed   int64
}

// MDE is the smallest relative change, in percent, that a comparison
// described by s finds with power s.Power: +Inf when no change can be
// found (the smallest possible p is above alpha/family), 0 when the
// samples have no spread (any change separates them). The search is
// done on common random numbers, and the target is the power plus 1.645
// Monte Carlo standard errors, so that the true power at the returned
// change is at least s.Power with about 95% confidence.
func MDE(s PowerSpec) float64 {
	if s.Power == 0 {
		s.Power = 0.8
	}
	if s.Trials == 0 {
		s.Trials = 1000
	}
	if s.Family < 1 {
		s.Family = 1
	}
	level := s.Alpha / float64(s.Family)
	if s.N1 < 1 || s.N2 < 1 || MinMannWhitneyP(s.N1, s.N2) > level || math.IsNaN(s.Sigma) || math.IsInf(s.Sigma, 0) {
		return math.Inf(1)
	}
	if s.Sigma <= 0 {
		return 0
	}
	hi := shiftFor(shiftKey{s.N1, s.N2, level, s.Power, s.Trials, s.Seed})
	if math.IsInf(hi, 1) {
		return hi
	}
	if s.Log {
		return math.Expm1(hi*s.Sigma) * 100
	}
	return hi * s.Sigma * 100
}

// shiftKey: the shift (in units of sigma) a test needs depends only on
// the sample sizes, the level, the power and the simulation, not on
// sigma (the U test sees ranks), so it is computed once per key.
type shiftKey struct {
	n1, n2       int
	level, power float64
	trials       int
	seed         int64
}

var shifts sync.Map // shiftKey -> float64

func shiftFor(k shiftKey) float64 {
	if v, ok := shifts.Load(k); ok {
		return v.(float64)
	}
	v := searchShift(k)
	shifts.Store(k, v)
	return v
}

// searchShift finds the smallest location shift, in standard deviations
// of normal noise, at which the U test rejects at k.level with
// probability k.power plus 1.645 Monte Carlo standard errors.
func searchShift(k shiftKey) float64 {
	target := math.Min(1, k.power+1.645*math.Sqrt(k.power*(1-k.power)/float64(k.trials)))
	r := rand.New(rand.NewSource(k.seed))
	z1 := make([][]float64, k.trials)
	z2 := make([][]float64, k.trials)
	for t := range z1 {
		z1[t], z2[t] = normals(r, k.n1), normals(r, k.n2)
	}
	y := make([]float64, k.n2)
	power := func(shift float64) float64 {
		hits := 0
		for t := range z1 {
			for j, z := range z2[t] {
				y[j] = z + shift
			}
			if uTestP(z1[t], y) <= k.level {
				hits++
			}
		}
		return float64(hits) / float64(k.trials)
	}
	// Grow the shift until the power is reached (with complete
	// separation p is the smallest possible p, which is <= level, so it
	// is reached), then bisect.
	lo, hi := 0.0, 0.25
	for power(hi) < target {
		lo, hi = hi, hi*2
		if hi > 1e6 {
			return math.Inf(1)
		}
	}
	for i := 0; i < 40 && hi-lo > 1e-3*hi; i++ {
		mid := (lo + hi) / 2
		if power(mid) >= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Spread estimates the spread between boots of two samples, as MDE wants
// it: the pooled standard deviation of the log values when every value
// is positive (a change is then a ratio), else of the values relative to
// the baseline's mean. ok is false when there are too few values.
func Spread(base, cand []float64) (sigma float64, log bool, ok bool) {
	if len(base)+len(cand) < 3 {
		return 0, false, false
	}
	log = true
	for _, v := range append(append([]float64(nil), base...), cand...) {
		if !(v > 0) {
			log = false
		}
	}
	tr := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			if log {
				out[i] = math.Log(x)
			} else {
				out[i] = x
			}
		}
		return out
	}
	ss, df := 0.0, 0
	for _, v := range [][]float64{tr(base), tr(cand)} {
		if len(v) < 2 {
			continue
		}
		m := 0.0
		for _, x := range v {
			m += x
		}
		m /= float64(len(v))
		for _, x := range v {
			ss += (x - m) * (x - m)
		}
		df += len(v) - 1
	}
	if df == 0 {
		return 0, log, false
	}
	sigma = math.Sqrt(ss / float64(df))
	if !log {
		mean := 0.0
		for _, x := range base {
			mean += x
		}
		mean /= float64(len(base))
		if mean == 0 {
			return 0, false, false
		}
		sigma /= math.Abs(mean)
	}
	return sigma, log, true
}

func normals(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

// uTestP is the two-sided Mann-Whitney p-value of two samples without
// ties, exactly as go-moremath's MannWhitneyUTest computes it (the exact
// U distribution up to MannWhitneyExactLimit per side, else the normal
// approximation with continuity correction), but from a cached table of
// the U distribution: the simulation runs it millions of times.
// TestUTestPMatchesProduct holds it to MannWhitneyP.
func uTestP(x, y []float64) float64 {
	n1, n2 := len(x), len(y)
	u1 := 0.0 // pairs with x above y, as ranks of x give
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				u1++
			case a == b:
				u1 += 0.5
			}
		}
	}
	u2 := float64(n1*n2) - u1
	if u1 == u2 {
		return 1
	}
	small := math.Min(u1, u2)
	if n1 <= stats.MannWhitneyExactLimit && n2 <= stats.MannWhitneyExactLimit {
		return 2 * uCDF(n1, n2)[int(small)]
	}
	n := float64(n1 + n2)
	mu := float64(n1*n2) / 2
	sd := math.Sqrt(float64(n1*n2) * (n + 1) / 12)
	num := u1 - mu
	num -= math.Copysign(0.5, num)
	z := num / sd
	c := stats.StdNormal.CDF(z)
	return 2 * math.Min(c, 1-c)
}

var uCDFs sync.Map // [2]int -> []float64

// uCDF is P(U <= u) for u = 0 .. n1*n2/2 under the null, no ties.
func uCDF(n1, n2 int) []float64 {
	key := [2]int{n1, n2}
	if v, ok := uCDFs.Load(key); ok {
		return v.([]float64)
	}
	d := stats.UDist{N1: n1, N2: n2}
	cdf := make([]float64, n1*n2/2+1)
	for u := range cdf {
		cdf[u] = d.CDF(float64(u))
	}
	uCDFs.Store(key, cdf)
	return cdf
}
