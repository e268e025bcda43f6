package bisect

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The stratified rank test's p-values are exact permutation p-values.
func TestStratifiedPExact(t *testing.T) {
	hi, lo := []float64{5, 6, 7, 8, 9}, []float64{1, 2, 3, 4, 4.5}
	// Complete separation of 5 against 5: 1 / C(10, 5).
	if p := stratifiedP([]Stratum{{hi, lo}}, true); math.Abs(p-1.0/252) > 1e-12 {
		t.Fatalf("separated 5 vs 5: p=%g, want 1/252", p)
	}
	if p := stratifiedP([]Stratum{{hi, lo}}, false); p < 0.999 {
		t.Fatalf("the other way: p=%g", p)
	}
	// Two looks, each separated: the product; the smallest p says so.
	two := []Stratum{{hi, lo}, {hi, lo}}
	if p := stratifiedP(two, true); math.Abs(p-1.0/252/252) > 1e-15 || math.Abs(smallestP([][2]int{{5, 5}, {5, 5}})-p) > 1e-15 {
		t.Fatalf("two separated looks: p=%g", p)
	}
	// A look 100 times higher than the other changes nothing: ranks are
	// taken within a look.
	shifted := []Stratum{{hi, lo}, {[]float64{501, 601, 701}, []float64{101, 201, 301}}}
	base := []Stratum{{hi, lo}, {[]float64{5.01, 6.01, 7.01}, []float64{1.01, 2.01, 3.01}}}
	if a, b := stratifiedP(shifted, true), stratifiedP(base, true); a != b {
		t.Fatalf("a look's level moved p: %g vs %g", a, b)
	}
	// Ties: every boot equal is no evidence at all.
	if p := stratifiedP([]Stratum{{[]float64{1, 1, 1}, []float64{1, 1, 1}}}, true); math.Abs(p-1) > 1e-12 {
		t.Fatalf("all tied: p=%g", p)
	}
	// Separated with ties inside each side: still the smallest p.
	if p := stratifiedP([]Stratum{{[]float64{2, 2, 2}, []float64{1, 1, 1}}}, true); math.Abs(p-0.05) > 1e-12 {
		t.Fatalf("tied within sides: p=%g, want 1/20", p)
	}
	if p := stratifiedP(nil, true); p != 1 {
		t.Fatalf("no look: p=%g", p)
	}
}

// Under "no difference" (any per-look levels) the test rejects at most
// its level; the normal approximation for big looks agrees with it.
func TestStratifiedPLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 20000
	for _, level := range []float64{0.05, 0.01} {
		hits := 0
		for i := 0; i < n; i++ {
			var st []Stratum
			for k := 0; k < 3; k++ {
				x, y := make([]float64, 4), make([]float64, 4)
				for j := range x {
					x[j], y[j] = 100*float64(k)+rng.NormFloat64(), 100*float64(k)+rng.NormFloat64()
				}
				st = append(st, Stratum{x, y})
			}
			if stratifiedP(st, true) < level {
				hits++
			}
		}
		if rate := float64(hits) / n; rate > level+3*math.Sqrt(level/n) {
			t.Errorf("level %g: rejected %.4f", level, rate)
		}
	}
	// One look of 40 + 40 (normal approximation) against the same data
	// split into two exact looks of 20 + 20 from one distribution: close.
	x, y := make([]float64, 40), make([]float64, 40)
	for j := range x {
		x[j], y[j] = rng.NormFloat64()+0.5, rng.NormFloat64()
	}
	approx := stratifiedP([]Stratum{{x, y}}, true)
	exact := stratifiedP([]Stratum{{x[:20], y[:20]}, {x[20:], y[20:]}}, true)
	if approx <= 0 || exact <= 0 || math.Abs(math.Log(approx/exact)) > 1.5 {
		t.Errorf("normal approximation %g against exact halves %g", approx, exact)
	}
}

// Rate.Miss is E[(1-p)^m] under the Beta posterior.
func TestRateMiss(t *testing.T) {
	r := Rate{Failed: 3, Boots: 10}
	a, b := 3.5, 7.5
	if r.Miss(0) != 1 || math.Abs(r.Miss(1)-b/(a+b)) > 1e-12 || math.Abs(r.Miss(2)-b/(a+b)*(b+1)/(a+b+1)) > 1e-12 {
		t.Fatalf("miss %g %g %g", r.Miss(0), r.Miss(1), r.Miss(2))
	}
	m := r.BootsFor(0.005)
	if r.Miss(m) > 0.005 || r.Miss(m-1) <= 0.005 {
		t.Fatalf("BootsFor(0.005) = %d: miss %g, one fewer %g", m, r.Miss(m), r.Miss(m-1))
	}
	// A rate known from more boots needs fewer clean boots (less
	// uncertainty), and always more than the plug-in rate would say.
	if more := (Rate{Failed: 30, Boots: 100}).BootsFor(0.005); more >= m || float64(more) < math.Log(0.005)/math.Log(0.7) {
		t.Fatalf("30 of 100: %d boots, 3 of 10: %d", more, m)
	}
}
