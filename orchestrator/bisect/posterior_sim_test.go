package bisect_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/bisect/bisectsim"
)

// TestSearchSpendsStrictEvidenceAtTheCulprit: the stopping rule needs the
// strict margin only between the culprit and its neighbours, so the
// culprit and its parent are measured far more than commits the search
// passed on its way (the old search gave every step the same share and
// so about the same boots). Over 200 simulated bisects of 16 commits (a
// 10% step, CV 0.05) the commits two or more away from the change get on
// average under half the boots of the two beside it.
func TestSearchSpendsStrictEvidenceAtTheCulprit(t *testing.T) {
	var near, far []int
	for i := 0; i < 200; i++ {
		rng := rand.New(rand.NewPCG(uint64(i), 21))
		k := 1 + rng.IntN(16)
		p := &bisectsim.Prober{Rng: rng, Culprit: k, Base: 100, Change: 0.1, CV: 0.05}
		res, err := bisect.Run(context.Background(), p, bisectsim.Commits(16), bisect.Options{}, nil, nil)
		if err != nil || res.Culprit != fmt.Sprintf("c%d", k) {
			continue
		}
		for _, s := range res.Steps {
			switch {
			case s.Index < 0 || s.N == 0 || s.Commit == res.Steps[0].Probe:
				// The first midpoint's boots in the endpoints' looks are
				// spent before anything is known.
			case s.Index == k || s.Index == k-1:
				near = append(near, s.N)
			case s.Index < k-2 || s.Index > k+1:
				far = append(far, s.N)
			}
		}
	}
	mean := func(xs []int) float64 {
		s := 0
		for _, x := range xs {
			s += x
		}
		return float64(s) / float64(max(1, len(xs)))
	}
	t.Logf("boots of a commit beside the change %.1f (%d), two or more away %.1f (%d)", mean(near), len(near), mean(far), len(far))
	if len(near) < 100 || len(far) < 100 || mean(far) >= mean(near)/2 {
		t.Fatalf("beside the change %.1f boots (%d commits), away from it %.1f (%d)", mean(near), len(near), mean(far), len(far))
	}
}

// TestWrongCulpritBound: the stated bound. 400 bisects of 16 commits, a
// 10% step, CV 0.05, the culprit anywhere: a wrong culprit in at most
// 0.65 alpha (the stopping rule's bound for a known change and spread),
// 3 sigma of binomial noise allowed above it.
func TestWrongCulpritBound(t *testing.T) {
	if testing.Short() {
		t.Skip("400 simulated bisects")
	}
	const trials = 400
	ty, err := bisectsim.Simulate(trials, 16, 23, bisectsim.Prober{Base: 100, Change: 0.1, CV: 0.05}, bisect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := 0.65 * 0.05
	t.Logf("right %.3f wrong %.3f, %.1f boots", ty.RightRate(), ty.WrongRate(), ty.MeanBoots())
	if ty.WrongRate() > a+3*math.Sqrt(a*(1-a)/trials) {
		t.Fatalf("wrong culprit in %.1f%% of bisects, bound %.2f%%", 100*ty.WrongRate(), 100*a)
	}
}
