package noise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kregress/kregress/guest/report"
	"github.com/kregress/kregress/results"
)

func TestMDE(t *testing.T) {
	// (1.96 + 0.84) * sqrt(2/8) * 0.2 / sqrt(3/pi) = 28.7%
	if got := MDE(0.2, 8); math.Abs(got-28.67) > 0.05 {
		t.Fatalf("MDE(0.2, 8) = %.2f", got)
	}
	if !math.IsInf(MDE(0.01, 3), 1) {
		t.Fatal("3 boots per side can detect nothing at 0.05")
	}
	if MDE(0.03, 8) > 5 {
		t.Fatalf("the issue's goal: CV 0.03 sees 5%% at 8 boots, got %.1f%%", MDE(0.03, 8))
	}
}

func TestAnalyze(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var rs []*results.Result
	for i := 0; i < 200; i++ {
		load := float64(i % 7)
		rs = append(rs, &results.Result{Status: results.StatusOK, Provenance: results.Provenance{HostLoad1: load},
			Metrics: []report.Metric{
				{Name: "reads_per_sec", Unit: "reads/s", Direction: report.HigherIsBetter, Value: 1000 * (1 + 0.1*rng.NormFloat64())},
				{Name: "slowed_by_load", Unit: "us", Direction: report.LowerIsBetter, Value: 100 + 10*load + rng.Float64()},
				{Name: "oom_kills", Unit: "kills", Direction: report.Informational, Value: 3},
			}})
	}
	rs = append(rs, &results.Result{Status: results.StatusCrashed})
	ms := Analyze(rs)
	if len(ms) != 2 || ms[0].Boots != 200 {
		t.Fatalf("%+v", ms)
	}
	if cv := ms[0].CV; cv < 0.085 || cv > 0.115 {
		t.Fatalf("CV %.3f, planted 0.1", cv)
	}
	if r := ms[1].LoadR; r < 0.95 {
		t.Fatalf("load correlation %.2f for a metric that follows load", r)
	}
	if r := ms[0].LoadR; math.Abs(r) > 0.2 {
		t.Fatalf("load correlation %.2f for a metric that does not", r)
	}
	if len(ms[0].MDEPct) != len(Sizes) || ms[0].MDEPct[0] <= ms[0].MDEPct[2] {
		t.Fatalf("MDE %v", ms[0].MDEPct)
	}
}
