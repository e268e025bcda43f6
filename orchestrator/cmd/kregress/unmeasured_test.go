package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// A candidate whose every cell was infra_error is unmeasured: `diff
// --fail-on-regression` exits 1 (infrastructure) and says so, where it
// once printed "no significant change" and exited 0.
func TestDiffUnmeasuredCandidateExits1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := &results.Run{Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "per-cpu-relock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		ok := &results.Result{RunID: r.ID, Variant: "stock", Repetition: i + 1, Seq: 2*i + 1, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 2400 + float64(i)}}}
		infra := &results.Result{RunID: r.ID, Variant: "per-cpu-relock", Repetition: i + 1, Seq: 2*i + 2, Status: results.StatusInfra, Error: "qemu-system-x86_64: not found"}
		for _, res := range []*results.Result{ok, infra} {
			if err := s.AddResult(ctx, res); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.FinishRun(ctx, r.ID, results.RunComplete, "")
	s.Close()
	out, err := kregress(t, path, "diff", "1", "--fail-on-regression")
	if exitCodeOf(err) != 1 {
		t.Fatalf("want exit 1, got %v:\n%s", err, out)
	}
	for _, want := range []string{"verdict: unmeasured: per-cpu-relock", "not measured, so not passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no significant change") {
		t.Errorf("an unmeasured candidate shown as no change:\n%s", out)
	}
	// Without --fail-on-regression the verdict is printed and the exit is 0.
	if out, err := kregress(t, path, "diff", "1"); err != nil || !strings.Contains(out, "verdict: unmeasured") {
		t.Fatalf("without the gate: %v\n%s", err, out)
	}
}
