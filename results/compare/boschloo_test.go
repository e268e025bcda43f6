package compare

import (
	"math"
	"testing"

	"github.com/kregress/kregress/internal/stats"
)

// Tables small enough to work out by hand: 1 of 1 against 0 of 1 is the
// only table as extreme, of probability pi(1-pi), largest (1/4) at 1/2;
// 2 of 2 against 0 of 2 likewise pi^2(1-pi)^2, 1/16.
func TestBoschlooByHand(t *testing.T) {
	for _, c := range []struct {
		a, n1, b, n2 int
		want         float64
	}{{1, 1, 0, 1, 0.25}, {2, 2, 0, 2, 1.0 / 16}, {0, 5, 0, 5, 1}, {0, 4, 2, 4, 1}} {
		got, ok := boschlooOneSided(c.a, c.n1, c.b, c.n2)
		if !ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("boschloo(%d/%d vs %d/%d) = %v (%v), want %v", c.a, c.n1, c.b, c.n2, got, ok, c.want)
		}
	}
	// Too many tables: Fisher's p, said so.
	if p, ok := boschlooOneSided(100, 300, 50, 300); ok || p != fisherOneSided(100, 300, 50, 300) {
		t.Errorf("300+300 cells: %v %v", p, ok)
	}
}

// binomPMF is P(X = k) for X ~ Bin(n, p).
func binomPMF(k, n int, p float64) float64 {
	switch {
	case p == 0:
		return map[bool]float64{true: 1}[k == 0]
	case p == 1:
		return map[bool]float64{true: 1}[k == n]
	}
	return math.Exp(stats.LogChoose(n, k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// pValues is the test's p of every table of n1 and n2 cells.
func pValues(n1, n2 int, test func(a, n1, b, n2 int) float64) [][]float64 {
	ps := make([][]float64, n1+1)
	for a := range ps {
		ps[a] = make([]float64, n2+1)
		for b := range ps[a] {
			ps[a][b] = test(a, n1, b, n2)
		}
	}
	return ps
}

// rejectProb is, by enumeration of every table, the probability that the
// test (its p-values ps) calls the first group's rate higher at alpha when
// the rates are p1 and p2.
func rejectProb(ps [][]float64, p1, p2, alpha float64) float64 {
	n1, n2 := len(ps)-1, len(ps[0])-1
	s := 0.0
	for a := 0; a <= n1; a++ {
		for b := 0; b <= n2; b++ {
			if float64(a)*float64(n2) > float64(b)*float64(n1) && ps[a][b] < alpha {
				s += binomPMF(a, n1, p1) * binomPMF(b, n2, p2)
			}
		}
	}
	return s
}

// The test's false-alarm rate is at most alpha whatever rate both sides
// share (exactly, by enumeration, not by simulation), it is never less
// powerful than Fisher's, and it finds a candidate failing half its cells
// against none at 8+8 in >= 85% of comparisons (Fisher: 64%).
func TestBoschlooLevelAndPower(t *testing.T) {
	bos := func(a, n1, b, n2 int) float64 { p, _ := boschlooOneSided(a, n1, b, n2); return p }
	for _, n := range [][2]int{{3, 3}, {5, 5}, {8, 8}, {5, 8}, {12, 12}} {
		ps, fs := pValues(n[0], n[1], bos), pValues(n[0], n[1], fisherOneSided)
		worst := 0.0
		for i := 1; i < 200; i++ {
			worst = math.Max(worst, rejectProb(ps, float64(i)/200, float64(i)/200, 0.05))
		}
		if worst > 0.05 {
			t.Errorf("%d+%d cells: false alarm up to %.4f at alpha 0.05", n[0], n[1], worst)
		}
		for a := range ps {
			for b := range ps[a] {
				if ps[a][b] > fs[a][b]+1e-12 {
					t.Errorf("%d/%d vs %d/%d: Boschloo p %v above Fisher's %v", a, n[0], b, n[1], ps[a][b], fs[a][b])
				}
			}
		}
	}
	ps, fs := pValues(8, 8, bos), pValues(8, 8, fisherOneSided)
	power, fisher := rejectProb(ps, 0.5, 0, 0.05), rejectProb(fs, 0.5, 0, 0.05)
	if power < 0.85 || power <= fisher {
		t.Errorf("8+8, 50%% against 0%%: power %.3f (Fisher %.3f)", power, fisher)
	}
	t.Logf("8+8, 50%% against 0%%: power %.3f (Fisher %.3f)", power, fisher)
}
