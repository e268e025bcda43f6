package compare

import (
	"errors"
	"testing"

	"github.com/kregress/kregress/results/verdict"
)

// Gate is --fail-on-regression's outcome: what the debug pass flagged
// is a regression, and an unmeasured candidate is the host's failure,
// returned as the error naming it.
func TestGate(t *testing.T) {
	unmeasured := &Diff{
		Variants: []*Variant{{Name: "base"}, {Name: "patched"}},
		Failures: map[string]FailureRate{"patched": {Verdict: verdict.Unmeasured, Reason: "every cell infra_error"}},
	}
	v, err := Gate(false, unmeasured)
	var um *UnmeasuredError
	if v != verdict.ComparisonUnmeasured || !errors.As(err, &um) || len(um.Sets) != 1 || um.Sets[0] != "patched: every cell infra_error" {
		t.Fatalf("unmeasured candidate: %v, %v", v, err)
	}
	if v, err := Gate(true, unmeasured); v != verdict.ComparisonRegression || err != nil {
		t.Fatalf("flagged by the debug pass: %v, %v", v, err)
	}
	pass := &Diff{Variants: []*Variant{{Name: "base"}, {Name: "patched"}}}
	if v, err := Gate(false, pass); v != verdict.ComparisonPass || err != nil {
		t.Fatalf("nothing failed: %v, %v", v, err)
	}
	if v, err := Gate(true, pass); v != verdict.ComparisonRegression || err != nil {
		t.Fatalf("only the debug pass flagged: %v, %v", v, err)
	}
}
