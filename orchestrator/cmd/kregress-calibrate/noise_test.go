package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/export"
)

// The draws every parametric row's table was made with, written out as
// they were before the models became one type: the rows' figures stay
// the same for a seed only while the model draws exactly these values.

func refLognormal(rng *rand.Rand, n int, names []string, cv, outliers float64, scale map[string]float64) [][]float64 {
	sigma := math.Sqrt(math.Log1p(cv * cv))
	var out [][]float64
	for i := 0; i < n; i++ {
		var boot []float64
		for _, name := range names {
			x := 1000 * math.Exp(sigma*rng.NormFloat64())
			if s, ok := scale[name]; ok {
				x *= s
			}
			boot = append(boot, x)
		}
		out = append(out, boot)
	}
	for _, boot := range out {
		if outliers > 0 && rng.Float64() < outliers {
			for i := range boot {
				boot[i] *= 3
			}
		}
	}
	return out
}

func refFlagFirst(rng *rand.Rand, n int, names []string, outliers float64, value func(*rand.Rand, bool) float64) [][]float64 {
	var out [][]float64
	for i := 0; i < n; i++ {
		out1 := rng.Float64() < outliers
		var boot []float64
		for range names {
			boot = append(boot, value(rng, out1))
		}
		out = append(out, boot)
	}
	return out
}

func figures(rs []*results.Result) [][]float64 {
	var out [][]float64
	for _, r := range rs {
		var boot []float64
		for _, m := range r.Metrics {
			boot = append(boot, m.Value)
		}
		out = append(out, boot)
	}
	return out
}

func sameDraws(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	if !slices.EqualFunc(got, want, func(a, b []float64) bool { return slices.Equal(a, b) }) {
		t.Errorf("%s: the model draws\n%v\nwhere the rows were calibrated with\n%v", what, got, want)
	}
}

func TestParametricModelsDrawAsTheRowsWereCalibrated(t *testing.T) {
	names := metricNames(4)
	scale := map[string]float64{"m3": 1.5}
	for i, nm := range noiseModels[:3] {
		cv := []float64{0.2, 0.2, math.Sqrt(math.Exp(0.09) - 1)}[i]
		a, b := rand.New(rand.NewPCG(1, uint64(i))), rand.New(rand.NewPCG(1, uint64(i)))
		sameDraws(t, nm.Name, figures(nm.cells(a, "x", 20, names, scale)), refLognormal(b, 20, names, cv, nm.Outliers, scale))
		if a.Uint64() != b.Uint64() {
			t.Errorf("%s: the model consumed another number of draws", nm.Name)
		}
	}
	a, b := rand.New(rand.NewPCG(2, 2)), rand.New(rand.NewPCG(2, 2))
	sameDraws(t, "cells", figures(cells(a, "x", 20, names, 0.3, scale)), refLognormal(b, 20, names, 0.3, 0, scale))
	refs := []func(*rand.Rand, bool) float64{
		func(rng *rand.Rand, _ bool) float64 { return math.Round(10 * math.Exp(0.2*rng.NormFloat64())) },
		func(rng *rand.Rand, out bool) float64 {
			x := 1000 * math.Exp(0.05*rng.NormFloat64())
			if out {
				x *= 3
			}
			return x
		},
		func(rng *rand.Rand, _ bool) float64 { return 1000 * math.Exp(0.3*rng.NormFloat64()) },
	}
	for i, nm := range parametricNull() {
		a, b := rand.New(rand.NewPCG(3, uint64(i))), rand.New(rand.NewPCG(3, uint64(i)))
		sameDraws(t, nm.Name, figures(nm.cells(a, "x", 40, names, nil)), refFlagFirst(b, 40, names, nm.Outliers, refs[i]))
		// A change-point night's boot: its flag, then its figure.
		a, b = rand.New(rand.NewPCG(4, uint64(i))), rand.New(rand.NewPCG(4, uint64(i)))
		for k := 0; k < 40; k++ {
			if got, want := nm.value(a), refs[i](b, b.Float64() < nm.Outliers); got != want {
				t.Fatalf("%s: value %v, calibrated with %v", nm.Name, got, want)
			}
		}
	}
}

func TestOutliersAndTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	out := noiseModel{Sigma: 0.01, Outliers: 0.5}
	high := 0
	for _, r := range out.cells(rng, "x", 400, metricNames(3), nil) {
		// An outlier boot moves every metric: all high or none.
		n := 0
		for _, m := range r.Metrics {
			if m.Value > 2000 {
				n++
			}
		}
		if n != 0 && n != len(r.Metrics) {
			t.Fatalf("an outlier boot moved %d of %d metrics", n, len(r.Metrics))
		}
		if n > 0 {
			high++
		}
	}
	if high < 150 || high > 250 {
		t.Errorf("%d of 400 boots at 3x, want about half", high)
	}
	ties := noiseModel{Sigma: 0.2, Center: 10, Ties: true}
	seen := map[float64]bool{}
	for _, r := range ties.cells(rng, "x", 100, metricNames(2), map[string]float64{"m1": 1.5}) {
		for _, m := range r.Metrics {
			if m.Value != math.Round(m.Value) {
				t.Fatalf("tied model drew %v, not an integer (a change applies before rounding)", m.Value)
			}
			seen[m.Value] = true
		}
	}
	if len(seen) > 40 {
		t.Errorf("%d distinct figures in 200: that is not a model with ties", len(seen))
	}
}

// TestResampledKeepsWholeBoots: each simulated boot is one real boot,
// every metric from the same one (their correlation kept), times the
// change where the row has one.
func TestResampledKeepsWholeBoots(t *testing.T) {
	c := realCellOf(realExperiment, realBaseline)
	nm := resampled(c)
	names := metricNames(len(c.Metrics))
	rng := rand.New(rand.NewPCG(6, 6))
	used := map[int]bool{}
	for _, r := range nm.cells(rng, "x", 200, names, map[string]float64{"m3": 2}) {
		got := figures([]*results.Result{r})[0]
		got[3] /= 2
		i := slices.IndexFunc(c.Boots, func(b []float64) bool { return slices.Equal(b, got) })
		if i < 0 {
			t.Fatalf("boot %v is no real boot of %s/%s", got, c.Experiment, c.Variant)
		}
		used[i] = true
	}
	if len(used) < len(c.Boots)*3/4 {
		t.Errorf("200 draws used %d of %d real boots", len(used), len(c.Boots))
	}
	defer func() {
		if recover() == nil {
			t.Error("a row asking for more metrics than the real cell has ran")
		}
	}()
	nm.cells(rng, "x", 1, metricNames(len(c.Metrics)+1), nil)
}

// TestRealBootsDataSet: the shipped data set is what the rows assume.
func TestRealBootsDataSet(t *testing.T) {
	c := realCellOf(realExperiment, realBaseline)
	if c.Metrics[0] != "rstat_lock_hold_p50_us" {
		t.Errorf("first metric %s, want the workload's primary", c.Metrics[0])
	}
	if len(c.Metrics) < 11 {
		t.Errorf("%d judged metrics, the rows of misses simulate 11", len(c.Metrics))
	}
	if len(realModels()) < 2 {
		t.Errorf("%d real models, want one for each variant of %s", len(realModels()), realExperiment)
	}
	for _, nm := range realModels() {
		rc := nm.Real
		if len(rc.Boots) < 10 {
			t.Errorf("%s/%s: %d boots, want at least 10", rc.Experiment, rc.Variant, len(rc.Boots))
		}
	}
	for _, bad := range []string{"/root/", "/home/", "/work/", "/tmp/"} {
		if strings.Contains(realBootsCSV, bad) {
			t.Errorf("the data set's provenance names a path (%s)", bad)
		}
	}
}

func TestParseRealBootsRefusesBadInput(t *testing.T) {
	head := strings.Join(realColumns, ",") + "\n"
	ok := "e,v,1,m,us,lower,1\ne,v,2,m,us,lower,2\n"
	if _, err := parseRealBoots("# comment\n" + head + ok); err != nil {
		t.Fatalf("a good data set: %v", err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"header", "experiment,variant\n" + ok, "header"},
		{"value", head + "e,v,1,m,us,lower,x\n", `value "x"`},
		{"NaN", head + "e,v,1,m,us,lower,NaN\n", `value "NaN"`},
		{"boot", head + "e,v,0,m,us,lower,1\n", `boot "0"`},
		{"direction", head + "e,v,1,m,us,sideways,1\n", `direction "sideways"`},
		{"twice", head + ok + "e,v,1,m,us,lower,3\n", "m twice"},
		{"one boot", head + "e,v,1,m,us,lower,1\n", "nothing to resample"},
		{"only info", head + "e,v,1,m,us,info,1\ne,v,2,m,us,info,1\n", "nothing to resample"},
		{"empty", head, "no cell"},
	} {
		if _, err := parseRealBoots(c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// TestDeriveRealBootsRoundTrip: an exported run becomes rows that read
// back as its ok boots, and the header names no host or path.
func TestDeriveRealBootsRoundTrip(t *testing.T) {
	run := &results.Run{ID: 3, Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock"}, StartedAt: time.Date(2026, 12, 6, 11, 0, 0, 0, time.UTC), Status: results.RunComplete, Config: "x: 1"}
	prov := results.Provenance{GuestKernel: "6.12.118 #3 SMP", QEMUVersion: "7.2.22", Accel: "tcg", Clock: "host", HostCores: 2, VCPUs: 2, MemoryMB: 1024, Host: "secret-host", WorkloadArgs: "/bin/kagent run rstat -duration 10s", HostLoad1: 2}
	var rs []*results.Result
	for i := 1; i <= 3; i++ {
		r := &results.Result{Variant: "stock", Repetition: i, Seq: i, Status: results.StatusOK, Provenance: prov, Metrics: []agentproto.Metric{
			{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 1.0 / float64(i)},
			{Name: "reads_total", Unit: "reads", Direction: agentproto.Informational, Value: 7},
		}}
		rs = append(rs, r)
	}
	rs = append(rs, &results.Result{Variant: "stock", Repetition: 4, Seq: 4, Status: results.StatusTimeout, Provenance: prov})
	var exp bytes.Buffer
	if err := export.Write(&exp, run, rs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, exp.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := deriveRealBoots(&out, "kregress run --repetitions 3", []string{path}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"# kregress run --repetitions 3", "3 ok, 1 timeout", "kernel 6.12.118 (", "QEMU 7.2.22, accel tcg", "workload: kagent run rstat"} {
		if !strings.Contains(text, want) {
			t.Errorf("header lacks %q:\n%s", want, text)
		}
	}
	for _, leak := range []string{"secret-host", "/bin/kagent", "#3 SMP"} {
		if strings.Contains(text, leak) {
			t.Errorf("header names %q:\n%s", leak, text)
		}
	}
	cs, err := parseRealBoots(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || !slices.Equal(cs[0].Metrics, []string{"rstat_lock_hold_p50_us"}) || len(cs[0].Boots) != 3 || cs[0].Boots[2][0] != 1.0/3 {
		t.Errorf("read back %+v", cs[0])
	}
}
