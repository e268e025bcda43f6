package bisect

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The stopping rule names a position only when it beats its neighbours
// by 4/a and positions d away by 2^(d+1)/a.
func TestNameThreshold(t *testing.T) {
	o := Options{Alpha: 0.05}
	a := 0.05 * estMargin
	if got, want := o.nameThreshold(1), math.Log(4/a); math.Abs(got-want) > 1e-12 {
		t.Fatalf("threshold at distance 1: %v, want log(4/a) = %v", got, want)
	}
	// Both sides' shares sum to at most a: that is the stated bound.
	sum := 0.0
	for d := 1; d < 60; d++ {
		sum += 2 * math.Exp(-o.nameThreshold(d))
	}
	if sum > a*(1+1e-9) {
		t.Fatalf("the positions' shares sum to %v, above a = %v", sum, a)
	}
	// Culprit c5 of 8: c4 good by 1 nat less than the neighbour needs.
	need := o.nameThreshold(1)
	llr := map[int]float64{4: -(need - 1), 5: need + 1, 2: -10, 3: -10, 7: 10}
	c := positions(8, llr, nil, nil)
	if b, named := c.best(o); named || c.blocks[b][0] != 5 {
		t.Fatalf("named %v (block %v) with c4 short of the threshold", named, c.blocks[b])
	}
	llr[4] = -(need + 0.01)
	c = positions(8, llr, nil, nil)
	if b, named := c.best(o); !named || len(c.blocks[b]) != 1 || c.blocks[b][0] != 5 {
		t.Fatalf("c5 not named (%v, block %v) with both neighbours past the threshold", named, c.blocks[b])
	}
	// With nothing measured beyond c5, the positions after it differ
	// only by unmeasured commits: c5's own evidence must beat the
	// farthest of them, 3 positions away.
	c = positions(8, map[int]float64{4: -(need + 0.01), 5: need + 0.01, 2: -10}, nil, nil)
	if _, named := c.best(o); named {
		t.Fatal("named c5 with c6 and c7 unmeasured and c5 short of the distance-3 threshold")
	}
}

// A commit that gives no evidence (skipped) joins the positions on both
// sides of it into one block; a pair with one image makes the positions
// between them impossible.
func TestPositionsBlocks(t *testing.T) {
	c := positions(8, map[int]float64{2: -10, 6: 10}, map[int]bool{4: true, 5: true}, nil)
	var got [][]int
	got = append(got, c.blocks...)
	want := [][]int{{1}, {2}, {3}, {4, 5, 6}, {7}, {8}}
	if len(got) != len(want) {
		t.Fatalf("blocks %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) || got[i][0] != want[i][0] {
			t.Fatalf("blocks %v, want %v", got, want)
		}
	}
	c = positions(8, nil, map[int]bool{5: true}, [][2]int{{3, 5}})
	for _, b := range c.blocks {
		for _, k := range b {
			if k == 4 || k == 5 {
				t.Fatalf("position %d possible though c3 and c5 have one image: %v", k, c.blocks)
			}
		}
	}
	// Uniform over the 6 possible positions, c3 bad when the culprit is
	// at 1, 2 or 3.
	if p := c.pBad(3); math.Abs(p-0.5) > 1e-12 {
		t.Fatalf("P(c3 bad) = %v, want 3/6", p)
	}
}

// boots draws n boots' figures around m with coefficient of variation cv
// from rng.
func boots(rng *rand.Rand, cv float64) func(m float64, n int) []float64 {
	return func(m float64, n int) []float64 {
		var xs []float64
		for k := 0; k < n; k++ {
			xs = append(xs, m*(1+cv*rng.NormFloat64()))
		}
		return xs
	}
}

// A step beside good whose level is the bad one's keeps gaining
// evidence look after look, however roughly the change is known: like
// good it would lie at 0 whatever the change. (The old pooled level
// carried the change's error on every look: its ratio stopped near the
// change's precision, and a commit beside the culprit was measured to
// the cap.)
func TestEvidenceGrowsBeyondTheChangesPrecision(t *testing.T) {
	draw := boots(rand.New(rand.NewPCG(3, 3)), 0.05)
	// The change from one endpoints' look of 5 + 5.
	prior := []Look{{Good: draw(100, 5), Bad: draw(110, 5)}}
	var looks []Look
	llr := map[int]float64{}
	for k := 1; k <= 40; k++ {
		looks = append(looks, Look{Step: draw(110, 2), Good: draw(100, 2)})
		llr[k] = sprt(prior, looks, 0.01, outlierZ).LLR
	}
	if !(llr[40] > 2*llr[10] && llr[10] > 0) {
		t.Fatalf("log likelihood ratio after 10 looks %.2f, after 40 %.2f: want it to keep growing", llr[10], llr[40])
	}
	// The same against bad, for a step like good.
	looks = nil
	for k := 1; k <= 40; k++ {
		looks = append(looks, Look{Step: draw(100, 2), Bad: draw(110, 2)})
		llr[k] = sprt(prior, looks, 0.01, outlierZ).LLR
	}
	if !(llr[40] < 2*llr[10] && llr[10] < 0) {
		t.Fatalf("like good beside bad: %.2f after 10 looks, %.2f after 40: want it to keep falling", llr[10], llr[40])
	}
}

// gaussLogLik against a direct 3x3 computation of the normal's density.
func TestGaussLogLik(t *testing.T) {
	m := [3]float64{0.1, -0.02, 0.04}
	p := [3]float64{400, 300, 200}
	a := [3]float64{1, 0, 0.5}
	delta, tau2 := 0.09, 0.0004
	// Covariance D + tau2 a a', inverted by Gauss-Jordan.
	var s [3][6]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			s[i][j] = tau2 * a[i] * a[j]
		}
		s[i][i] += 1 / p[i]
		s[i][3+i] = 1
	}
	det := 1.0
	for c := 0; c < 3; c++ {
		det *= s[c][c]
		for j := range s[c] {
			if j != c {
				s[c][j] /= s[c][c]
			}
		}
		s[c][c] = 1
		for r := 0; r < 3; r++ {
			if r != c {
				f := s[r][c]
				for j := range s[r] {
					s[r][j] -= f * s[c][j]
				}
			}
		}
	}
	quad := 0.0
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			quad += (m[i] - delta*a[i]) * s[i][3+j] * (m[j] - delta*a[j])
		}
	}
	detD := 1 / (p[0] * p[1] * p[2])
	want := -0.5*quad - 0.5*math.Log(det/detD)
	if got := gaussLogLik(m, p, a, delta, tau2); math.Abs(got-want) > 1e-9 {
		t.Fatalf("gaussLogLik %v, direct %v", got, want)
	}
}
