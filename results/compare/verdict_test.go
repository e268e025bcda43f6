package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/verdict"
)

func TestFisherAndBenjaminiHochberg(t *testing.T) {
	for _, c := range []struct {
		a, n1, b, n2 int
		want         float64
	}{
		{3, 5, 0, 5, 10.0 / 120},        // C(5,3)C(5,0)/C(10,3)... one-sided: 0.0833
		{5, 10, 0, 10, 252.0 / 15504},   // C(10,5)/C(20,5)
		{2, 4, 2, 4, 1 - 1.0/70*(1+16)}, // P(X>=2) with k=4 of 8, n1=4: 1 - (1+16)/70
	} {
		if got := fisherOneSided(c.a, c.n1, c.b, c.n2); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("fisher(%d/%d vs %d/%d) = %v, want %v", c.a, c.n1, c.b, c.n2, got, c.want)
		}
	}
	q := benjaminiHochberg([]float64{0.01, 0.04, 0.03, 0.2})
	want := []float64{0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.2}
	for i := range q {
		if math.Abs(q[i]-want[i]) > 1e-9 {
			t.Fatalf("BH q = %v, want %v", q, want)
		}
	}
	if p := MinMannWhitneyP(3, 4); math.Abs(p-2.0/35) > 1e-12 {
		t.Fatalf("min p 3 vs 4 = %v", p)
	}
}

func TestManyMetricsAreCorrected(t *testing.T) {
	// Nine metrics: a lone moderate p among null ones is significant
	// alone, not after the correction.
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		for _, v := range []string{"a", "b"} {
			r := &results.Result{Variant: v, Status: results.StatusOK}
			for k := 0; k < 8; k++ {
				r.Metrics = append(r.Metrics, agentproto.Metric{Name: "null" + string(rune('0'+k)), Unit: "x", Direction: agentproto.LowerIsBetter, Value: float64((i*7+k*3)%6) + float64(k)})
			}
			// "edge": b above a but for 4 of 36 pairs (U=4: p = 24/924).
			val := float64(i)
			if v == "b" {
				val = []float64{2.5, 4.5, 7, 8, 9, 10}[i]
			}
			r.Metrics = append(r.Metrics, agentproto.Metric{Name: "edge", Unit: "x", Direction: agentproto.LowerIsBetter, Value: val})
			rs = append(rs, r)
		}
	}
	d, err := Compare(rs, "a", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var edge Metric
	for _, m := range d.Metrics["b"] {
		if m.Name == "edge" {
			edge = m
		}
	}
	if edge.P >= 0.05 || edge.Q < 0.05 || edge.Verdict != verdict.NoChange {
		t.Fatalf("edge: p=%.3f q=%.3f verdict %s (want p<0.05, q>=0.05, ~)", edge.P, edge.Q, edge.Verdict)
	}
	// Named primary, it is its own family: judged on its p alone.
	d, err = Compare(rs, "a", Options{Primary: []string{"edge"}})
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Metrics["b"][0]; m.Name != "edge" || !m.Primary || m.Verdict != verdict.Regression || m.Q != m.P {
		t.Fatalf("primary edge: %+v", m)
	}
}

func TestSmallSamplesAndBadOptions(t *testing.T) {
	for _, sizes := range [][2]int{{3, 4}, {5, 2}} {
		rs := append(comparetest.Cells("a", results.StatusOK, sizes[0], 1, 2, 3), comparetest.Cells("b", results.StatusOK, sizes[1], 7, 8, 9)...)
		d, err := Compare(rs, "a", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if w := strings.Join(d.Metrics["b"][0].Warnings, "\n"); !strings.Contains(w, "smallest possible p") {
			t.Errorf("%d vs %d: no small-sample warning: %q", sizes[0], sizes[1], w)
		}
	}
	rs := append(comparetest.Cells("a", results.StatusOK, 5, 1, 2, 3, 4, 5), comparetest.Cells("b", results.StatusOK, 5, 3, 4, 5, 6, 7)...)
	d, _ := Compare(rs, "a", Options{})
	if w := strings.Join(d.Metrics["b"][0].Warnings, "\n"); !strings.Contains(w, "no 95% confidence interval for a median of 5 samples (it needs at least 6)") {
		t.Errorf("n=5: no word on the missing interval: %q", w)
	}
	for _, o := range []Options{{Alpha: 1.5}, {Alpha: -0.1}, {NoiseFloorPct: map[string]float64{"hold_us": -2}}} {
		if _, err := Compare(rs, "a", o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := Compare(rs, "a", Options{NoiseFloorPct: map[string]float64{"reads_per_second": 2}}); err == nil || !strings.Contains(err.Error(), "reads_per_second") || !strings.Contains(err.Error(), "reads_per_sec") {
		t.Errorf("unknown noise-floor metric: %v", err)
	}
	nodir := comparetest.Cells("a", results.StatusOK, 2, 1)
	nodir[0].Metrics[0].Direction = ""
	if _, err := Compare(append(nodir, comparetest.Cells("b", results.StatusOK, 2, 1)...), "a", Options{}); err == nil || !strings.Contains(err.Error(), "no direction") {
		t.Errorf("metric without direction: %v", err)
	}
	// A noise floor on a metric whose baseline median is 0.
	zero := func(v string, x float64) []*results.Result {
		var out []*results.Result
		for i := 0; i < 6; i++ {
			out = append(out, &results.Result{Variant: v, Status: results.StatusOK, Metrics: []agentproto.Metric{{Name: "stalls", Unit: "n", Direction: agentproto.LowerIsBetter, Value: x + float64(i)*x}}})
		}
		return out
	}
	d, err := Compare(append(zero("a", 0), zero("b", 1)...), "a", Options{NoiseFloorPct: map[string]float64{"stalls": 50}})
	if err != nil {
		t.Fatal(err)
	}
	m := d.Metrics["b"][0]
	if m.Verdict != verdict.Regression || !strings.Contains(strings.Join(m.Warnings, " "), "baseline median is 0") {
		t.Fatalf("zero baseline with a floor: %s %q", m.Verdict, m.Warnings)
	}
}
