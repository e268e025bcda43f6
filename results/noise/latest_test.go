package noise

import (
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// The latest complete noise run of an experiment gives each metric's
// spread; another experiment's, or none, gives nothing.
func TestLatestCV(t *testing.T) {
	ctx := t.Context()
	s := storetest.SQLite(t)
	if cv, id := LatestCV(ctx, nil, "e"); cv != nil || id != 0 {
		t.Errorf("no store: %v, run %d", cv, id)
	}
	r := &results.Run{Experiment: ExperimentPrefix + "e", Family: "f", Baseline: "stock", Variants: []string{"stock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{100, 110, 90, 100} {
		res := &results.Result{RunID: r.ID, Variant: "stock", Repetition: i + 1, Seq: i + 1, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "m", Unit: "us", Direction: agentproto.LowerIsBetter, Value: v}}}
		if err := s.AddResult(ctx, res); err != nil {
			t.Fatal(err)
		}
	}
	if cv, _ := LatestCV(ctx, s, "e"); cv != nil {
		t.Errorf("a noise run still running gave %v", cv)
	}
	if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
		t.Fatal(err)
	}
	cv, id := LatestCV(ctx, s, "e")
	if id != r.ID || !(cv["m"] > 0.05 && cv["m"] < 0.1) {
		t.Errorf("LatestCV: %v from run %d, want m's CV (about 0.08) from run %d", cv, id, r.ID)
	}
	if cv, id := LatestCV(ctx, s, "other"); cv != nil || id != 0 {
		t.Errorf("another experiment: %v, run %d", cv, id)
	}
}
