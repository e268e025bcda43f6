package pipeline

import (
	"context"
	"errors"
	"testing"

	"github.com/kregress/kregress/results/verdict"
)

// A baseline whose build failed is exit 4; one whose build was stopped by
// Ctrl-C is an interruption, not a kernel that could not be built.
func TestInterruptedBaselineBuildIsNotABaselineFailure(t *testing.T) {
	killed := errors.New("make tinyconfig: signal: killed")
	if got := verdict.ExitOf(buildFailure(context.Background(), "stock", true, killed)); got != verdict.ExitBaselineFailed {
		t.Fatalf("a failed baseline build exits %d, want %d", got, verdict.ExitBaselineFailed)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := buildFailure(ctx, "stock", true, killed)
	var be *BaselineBuildError
	if errors.As(err, &be) || verdict.ExitOf(err) == verdict.ExitBaselineFailed {
		t.Fatalf("an interrupted baseline build: %v (exit %d), want no baseline failure", err, verdict.ExitOf(err))
	}
	if verdict.ExitOf(buildFailure(context.Background(), "cand", false, killed)) == verdict.ExitBaselineFailed {
		t.Fatal("a candidate's failed build is not the baseline's")
	}
}
