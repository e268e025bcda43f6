package bisect

import (
	"math"
	"testing"
)

// The crash confidence by hand: commits c0..c4; the bad endpoint failed
// 3 of 10 boots, c2 ran 10 clean boots, c3 failed 1 of 2. The culprit
// is c1, c2 or c3 (c4 is after a failing commit); c1 and c2 need c2's
// clean boots from a bad kernel. With p integrated out under Jeffreys'
// prior, each position weighs B(failed + 1/2, clean + 1/2) of the boots
// from it on.
func TestCrashPosteriorByHand(t *testing.T) {
	res := &Result{Culprit: "c3", Steps: []Step{
		{Index: -1, BadCrashes: 3, Looks: []Look{{BadBoots: 10}}},
		{Commit: "c2", Index: 2, Verdict: Good, N: 10},
		{Commit: "c3", Index: 3, Verdict: Bad, N: 2, Crashes: 1},
	}}
	b := func(a, c float64) float64 { return math.Exp(lbeta(a, c)) }
	early := b(4+0.5, 7+10+1+0.5) // c1 or c2: every bad boot, c2's clean ones too
	c3 := b(4+0.5, 7+1+0.5)
	want := c3 / (c3 + 2*early)
	if got := crashPosterior(res, []string{"c0", "c1", "c2", "c3", "c4"}); math.Abs(got-want) > 1e-12 {
		t.Fatalf("posterior %.6f, want %.6f", got, want)
	}
	// Fewer clean boots at c2 leave the earlier positions more likely.
	res.Steps[1].N = 3
	if got := crashPosterior(res, []string{"c0", "c1", "c2", "c3", "c4"}); !(got < want) {
		t.Fatalf("3 clean boots: posterior %.6f, not below %.6f", got, want)
	}
	// Named at the bad endpoint: the commits before it all clean.
	res.Culprit, res.Steps[2] = "c4", Step{Commit: "c3", Index: 3, Verdict: Good, N: 20}
	if got := crashPosterior(res, []string{"c0", "c1", "c2", "c3", "c4"}); !(got > 0.5 && got < 1) {
		t.Fatalf("named at the bad endpoint: posterior %.6f", got)
	}
}
