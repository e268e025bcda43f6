package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/verdict"
)

// TestNullFalsePositiveRate: with nothing changed, how often does a run
// report a regression? Corrected (one Benjamini-Hochberg family over every
// candidate's metrics) it must stay near alpha; the uncorrected rate,
// computed from the same p-values, is logged beside it for the README.
func TestNullFalsePositiveRate(t *testing.T) {
	const runs = 400
	for _, c := range []struct{ k, n, metrics int }{{1, 8, 9}, {6, 8, 9}} {
		rng := rand.New(rand.NewPCG(1, uint64(c.k)))
		flagged, raw := 0, 0
		for i := 0; i < runs; i++ {
			d, err := Compare(comparetest.NullRun(rng, c.k, c.n, c.metrics, 0.2, 1), "base", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Failing()) > 0 {
				flagged++
			}
			anyRaw := false
			for _, ms := range d.Metrics {
				for _, m := range ms {
					if m.P < 0.05 && m.Cand.Median > m.Base.Median {
						anyRaw = true
					}
				}
			}
			if anyRaw {
				raw++
			}
		}
		rate, rawRate := float64(flagged)/runs, float64(raw)/runs
		t.Logf("%d candidate(s) x %d metrics, %d+%d cells, nothing changed: %.1f%% of %d runs report a regression (uncorrected p < 0.05: %.1f%%)", c.k, c.metrics, c.n, c.n, rate*100, runs, rawRate*100)
		// alpha 0.05 plus three binomial standard errors at 400 runs.
		if rate > 0.05+3*math.Sqrt(0.05*0.95/runs) {
			t.Errorf("false-positive rate %.3f exceeds alpha", rate)
		}
	}
}

// TestPowerAtEightBoots logs what the corrected verdict can still see:
// one metric of one candidate worse by 25% and 50% (CV 0.2), 8+8 cells.
func TestPowerAtEightBoots(t *testing.T) {
	const runs = 200
	for _, shift := range []float64{1.25, 1.5} {
		rng := rand.New(rand.NewPCG(2, uint64(shift*100)))
		found := 0
		for i := 0; i < runs; i++ {
			d, err := Compare(comparetest.NullRun(rng, 1, 8, 9, 0.2, shift), "base", Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range d.Metrics["cand1"] {
				if m.Name == "m0" && m.Verdict == verdict.Regression {
					found++
				}
			}
		}
		t.Logf("a %+.0f%% change in one of 9 metrics (CV 0.2), 8+8 cells: found in %.0f%% of %d runs", (shift-1)*100, float64(found)/runs*100, runs)
		if found == 0 {
			t.Errorf("a %+.0f%% change was never found: the correction leaves no power", (shift-1)*100)
		}
	}
}
