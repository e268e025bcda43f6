package nightly

import (
	"context"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

// A night whose variant was not measured (every cell infra_error) is an
// infrastructure failure, never a pass: the night's runner refuses such
// cells first (cellFailures), and the judge itself says the same, so a
// night judged on such cells cannot be marked good.
func TestAllInfraNightIsInfraFailure(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	first := n.Run(ctx, "rstat-every-n")
	if first.Outcome != FirstNight {
		t.Fatalf("night 1: %s", first.Outcome)
	}
	fr.status = results.StatusInfra
	night := n.Run(ctx, "rstat-every-n")
	if night.Outcome != InfraFailure {
		t.Fatalf("all-infra night: %s %+v", night.Outcome, night.Cases)
	}
	// The judge alone, on those cells.
	base, _ := n.Store.Results(ctx, first.RunIDs[0])
	tonight, _ := n.Store.Results(ctx, night.RunIDs[0])
	res := &Result{}
	if _, err := n.judge(res, &baseline{run: &results.Run{ID: first.RunIDs[0]}, results: base}, tonight, compare.Options{Alpha: 0.05}); err != nil {
		t.Fatal(err)
	}
	if res.Outcome != InfraFailure {
		t.Fatalf("judge: %s %+v", res.Outcome, res.Cases)
	}
	found := false
	for _, c := range res.Cases {
		if c.Variant == "per-cpu-relock" && c.Name == "failure rate" {
			found = c.Status == CaseError
		}
	}
	if !found {
		t.Fatalf("no error case for the unmeasured variant: %+v", res.Cases)
	}
}
