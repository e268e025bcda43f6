package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/verdict"
)

// The udelay case (docs/verdict.md): 4+4 boots, one metric x37 in every
// boot among 11. Over 11 metrics q is above 0.05 ("no significant
// change"); judged as the workload's primary metric, its own family, it
// is a regression.
func TestWorkloadPrimaryCallsTheUdelayCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	rs := comparetest.NullRun(rng, 1, 4, 11, 0.05, 37)
	d, err := Compare(rs, "base", Options{DefaultPrimary: []string{"m0", "not_in_these_results"}})
	if err != nil {
		t.Fatal(err)
	}
	m := d.Metrics["cand1"][0]
	if m.Name != "m0" || !m.Primary || m.Verdict != verdict.Regression {
		t.Fatalf("the x37 primary metric at 4+4: %+v", m)
	}
	if len(d.Failing()) == 0 {
		t.Fatal("a x37 change of the primary metric does not fail the comparison")
	}
	// Without the workload's primary metric the same data cannot be
	// called: the metric is unjudged, never "~".
	d, err = Compare(rs, "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Metrics["cand1"][0]; m.Verdict != verdict.Unjudged {
		t.Fatalf("x37 in a family of 11 at 4+4 must be unjudged, not %s", m.Verdict)
	}
	if len(d.Unjudged()) == 0 {
		t.Fatal("Unjudged lists nothing")
	}
}

// A NaN reaching go-moremath's U test allocates without bound: compare
// refuses it, naming the metric.
func TestCompareRefusesNaNAndInf(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		var rs []*results.Result
		for i := 0; i < 5; i++ {
			rs = append(rs, comparetest.Res("base", results.StatusOK, 100, 5, ""), comparetest.Res("cand", results.StatusOK, 100, 5, ""))
		}
		rs[3].Metrics[1].Value = bad
		_, err := Compare(rs, "base", Options{})
		if err == nil || !strings.Contains(err.Error(), "hold_us") {
			t.Fatalf("value %v: err %v, want a refusal naming hold_us", bad, err)
		}
	}
}

func TestMannWhitneyPRefusesNaN(t *testing.T) {
	if p := MannWhitneyP([]float64{1, 2, math.NaN()}, []float64{3, 4, 5}); !math.IsNaN(p) {
		t.Fatalf("p %v for a NaN sample, want NaN", p)
	}
	if p := MannWhitneyP([]float64{1, 2, 3}, []float64{4, math.Inf(1), 5}); !math.IsNaN(p) {
		t.Fatalf("p %v for an Inf sample, want NaN", p)
	}
}

// uTestP, the simulation's fast U test, is the product's test.
func TestUTestPMatchesProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 4))
	for _, n := range [][2]int{{3, 3}, {4, 4}, {5, 8}, {8, 8}, {16, 16}, {24, 20}, {55, 60}} {
		for i := 0; i < 50; i++ {
			x, y := make([]float64, n[0]), make([]float64, n[1])
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			for j := range y {
				y[j] = rng.NormFloat64() + float64(i%5)*0.4
			}
			if a, b := uTestP(x, y), MannWhitneyP(x, y); math.Abs(a-b) > 1e-9 {
				t.Fatalf("n=%v: uTestP %.12f, MannWhitneyP %.12f", n, a, b)
			}
		}
	}
}

// The MDE is what the diff finds: at the change MDE states (n=8, CV
// 0.03, one metric and a 9-metric family), the product's own Compare
// finds it in at least 80% of simulated runs (less two standard errors of
// the simulation). The asymptotic z formula's figure gave 73% at n=8.
func TestMDEHasItsPower(t *testing.T) {
	const runs = 400
	cv := 0.03
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	for _, family := range []int{1, 9} {
		mde := MDE(PowerSpec{N1: 8, N2: 8, Sigma: sigma, Log: true, Family: family, Alpha: 0.05})
		if math.IsInf(mde, 0) || mde <= 0 {
			t.Fatalf("family %d: MDE %v", family, mde)
		}
		rng := rand.New(rand.NewPCG(26, uint64(family)))
		found := 0
		for i := 0; i < runs; i++ {
			d, err := Compare(comparetest.NullRun(rng, 1, 8, family, cv, 1+mde/100), "base", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Metrics["cand1"][0].Verdict == verdict.Regression {
				found++
			}
		}
		power := float64(found) / runs
		t.Logf("n=8+8, CV %.2f, family of %d: stated MDE %.1f%%, found in %.1f%% of %d runs", cv, family, mde, power*100, runs)
		if power < 0.8-2*math.Sqrt(0.8*0.2/runs) {
			t.Errorf("family %d: power %.3f at the stated MDE %.1f%% is below 0.8", family, power, mde)
		}
	}
}

func TestCheckAlphaAndReps(t *testing.T) {
	for _, a := range []float64{0, -0.1, 1, 1.5, 3, math.NaN()} {
		if CheckAlpha("--alpha", a) == nil {
			t.Errorf("alpha %v accepted", a)
		}
	}
	if err := CheckAlpha("--alpha", 0.05); err != nil {
		t.Error(err)
	}
	// rstat-every-n as it was: 3 reps, 6 candidates, the nightly's
	// alpha/2.
	err := CheckReps(3, 6, 1, 0.025)
	if err == nil || !strings.Contains(err.Error(), "it needs 6 repetitions") {
		t.Fatalf("3 reps of 6 candidates at 0.025: %v", err)
	}
	if err := CheckReps(4, 1, 1, 0.05); err != nil {
		t.Fatalf("4+4, one primary metric, alpha 0.05 reaches 0.029: %v", err)
	}
	if n := NeededReps(1, 0.05); n != 4 {
		t.Fatalf("NeededReps(1, 0.05) = %d, want 4", n)
	}
}

func TestChiSquareQuantile(t *testing.T) {
	// Tables: chi2 0.25 quantiles at 8 and 14 df, 0.5 at 30.
	for _, c := range []struct {
		q    float64
		df   int
		want float64
	}{{0.25, 8, 5.071}, {0.25, 14, 10.165}, {0.5, 30, 29.336}} {
		if got := chiSquareQuantile(c.q, c.df); math.Abs(got-c.want)/c.want > 0.01 {
			t.Errorf("chi2 %.2f quantile, %d df: %.3f, want %.3f", c.q, c.df, got, c.want)
		}
	}
}
