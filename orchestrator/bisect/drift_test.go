package bisect_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/bisect/bisectsim"
)

// TestDriftCannotMoveACall: a step is compared only with the endpoint
// boots of its own look, so a host that gets 20% slower every look - far
// beyond a TCG host's drift - changes no verdict: the same boots under any
// drift give the same steps and the same culprit. (The old search pooled
// endpoint boots over looks: with a steady 2% per look it named a wrong
// culprit in 48.5% of 1000 bisects.)
func TestDriftCannotMoveACall(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		var verdicts [2]string
		for i, drift := range []float64{0, 0.2} {
			p := &bisectsim.Prober{Rng: rand.New(rand.NewPCG(seed, 3)), Culprit: 1 + int(seed%16), Base: 100, Change: 0.1, CV: 0.05, Drift: drift, Trend: true}
			res, err := bisect.Run(context.Background(), p, bisectsim.Commits(16), bisect.Options{}, nil, nil)
			if err != nil && !errors.Is(err, bisect.ErrNotReproduced) {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "culprit %q:", res.Culprit)
			for _, s := range res.Steps {
				fmt.Fprintf(&b, " %s=%s/%d", s.Commit, s.Verdict, s.N)
			}
			verdicts[i] = b.String()
		}
		if verdicts[0] != verdicts[1] {
			t.Fatalf("seed %d: drift changed the bisect:\n  steady host:   %s\n  drifting host: %s", seed, verdicts[0], verdicts[1])
		}
	}
}

// TestDriftRate: 300 bisects of 16 commits, a 10% step, CV 0.05, the host
// 2% slower (or faster) every look: a wrong culprit in at most 2% (3
// sigma of binomial noise allowed above it).
func TestDriftRate(t *testing.T) {
	if testing.Short() {
		t.Skip("300 simulated bisects")
	}
	const trials = 300
	ty, err := bisectsim.Simulate(trials, 16, 11, bisectsim.Prober{Base: 100, Change: 0.1, CV: 0.05, Drift: 0.02, Trend: true}, bisect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("steady 2%% drift per look: right %.3f wrong %.3f, %.1f boots", ty.RightRate(), ty.WrongRate(), ty.MeanBoots())
	if ty.WrongRate() > 0.02+3*math.Sqrt(0.02*0.98/trials) {
		t.Fatalf("wrong culprit in %.1f%% of drifting bisects", 100*ty.WrongRate())
	}
}

// TestReproducedStepsAreTyped: a step like good is "same" (backed by
// power), like bad "different".
func TestReproducedStepsAreTyped(t *testing.T) {
	p := &bisectsim.Prober{Rng: rand.New(rand.NewPCG(1, 1)), Culprit: 9, Base: 100, Change: 0.1, CV: 0.05}
	res, err := bisect.Run(context.Background(), p, bisectsim.Commits(16), bisect.Options{}, nil, nil)
	if err != nil || res.Culprit != "c9" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	for _, s := range res.Steps {
		if s.Index < 0 {
			continue
		}
		want := map[bisect.Verdict]bisect.Outcome{bisect.Good: bisect.Same, bisect.Bad: bisect.Different}[s.Verdict]
		if s.Test == nil || s.Test.Outcome != want {
			t.Errorf("%s %s: test %v, want %s", s.Commit, s.Verdict, s.Test, want)
		}
	}
}

// TestOptionsRefused: looks too small for alpha are refused, naming the
// boots per look that would do; alpha must lie in (0, 1).
func TestOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		reps  []int
		want  string
	}{
		{0.05, []int{3}, "--looks 4"},
		{0.05, []int{1, 1, 1}, "--looks 2,2,2"},
		{0.01, []int{4}, "--looks 5"},
		{0, []int{5}, "not in (0, 1)"},
		{1, []int{5}, "not in (0, 1)"},
		{-0.1, []int{5}, "not in (0, 1)"},
		{math.NaN(), []int{5}, "not in (0, 1)"},
		{0.05, []int{5, 0}, "a look of 0 boots"},
	} {
		err := bisect.CheckOptions(c.alpha, c.reps, false)
		if !errors.Is(err, bisect.ErrBadOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("alpha %v reps %v: %v, want %q", c.alpha, c.reps, err, c.want)
		}
	}
	for _, ok := range [][]int{{4}, {2, 2, 2}, bisect.DefaultReps} {
		if err := bisect.CheckOptions(0.05, ok, false); err != nil {
			t.Errorf("%v refused: %v", ok, err)
		}
	}
	if err := bisect.CheckOptions(0.05, []int{1}, true); err != nil {
		t.Errorf("crash mode takes any looks: %v", err)
	}
	// Run refuses them too, before building anything.
	p := &bisectsim.Prober{Rng: rand.New(rand.NewPCG(1, 1)), Culprit: 3, Base: 100, Change: 0.1, CV: 0.05}
	if _, err := bisect.Run(context.Background(), p, bisectsim.Commits(8), bisect.Options{Reps: []int{3}}, nil, nil); !errors.Is(err, bisect.ErrBadOptions) || p.Boots != 0 {
		t.Fatalf("--reps 3: %v after %d boots", err, p.Boots)
	}
}

// TestCrashConfidence: crash mode's confidence is the posterior chance
// of the named commit given the bisect's boots - not a constant: it
// differs between bisects; each good step's miss is at most its share,
// and steps boot only the step.
func TestCrashConfidence(t *testing.T) {
	confs := map[string]bool{}
	for seed := uint64(0); seed < 10; seed++ {
		p := &bisectsim.Prober{Rng: rand.New(rand.NewPCG(seed, 5)), Culprit: 5 + int(seed%8), Base: 100, CV: 0.05, CrashRate: 0.3}
		res, err := bisect.Run(context.Background(), p, bisectsim.Commits(16), bisect.Options{Crash: true}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		share := 0.05 / (math.Log2(16) + 2) // a step's share of alpha
		for _, s := range res.Steps {
			if s.Index < 0 {
				continue
			}
			for _, l := range s.Looks {
				if l.GoodBoots+l.BadBoots > 0 {
					t.Fatalf("step %s booted the endpoints: %+v", s.Commit, l)
				}
			}
			if s.Verdict == bisect.Good {
				if s.Miss <= 0 || s.Miss > share/2 {
					t.Fatalf("step %s called good with miss %g (share %g)", s.Commit, s.Miss, share)
				}
			}
		}
		if res.Culprit != "" && (!(res.Confidence > 0 && res.Confidence <= 1) || !strings.Contains(res.ConfidenceWhy, "failure rate")) {
			t.Fatalf("confidence %.4f (%s)", res.Confidence, res.ConfidenceWhy)
		}
		confs[fmt.Sprintf("%.6f", res.Confidence)] = true
	}
	if len(confs) < 2 || confs["0.800000"] {
		t.Fatalf("confidences %v: a constant is not what was controlled", confs)
	}
}

// TestCrashRates: 300 crash bisects at a 30% per-boot failure rate name
// the right commit in >= 90% and a wrong one in <= 2% (3 sigma allowed).
func TestCrashRates(t *testing.T) {
	if testing.Short() {
		t.Skip("300 simulated bisects")
	}
	const trials = 300
	ty, err := bisectsim.Simulate(trials, 16, 13, bisectsim.Prober{Base: 100, CV: 0.05, CrashRate: 0.3}, bisect.Options{Crash: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("crash 30%%: right %.3f wrong %.3f, %.1f boots, mean confidence %.3f", ty.RightRate(), ty.WrongRate(), ty.MeanBoots(), ty.MeanConfidence())
	if ty.RightRate() < 0.90-3*math.Sqrt(0.1*0.9/trials) || ty.WrongRate() > 0.02+3*math.Sqrt(0.02*0.98/trials) {
		t.Fatalf("crash bisects: right %.3f wrong %.3f", ty.RightRate(), ty.WrongRate())
	}
}
