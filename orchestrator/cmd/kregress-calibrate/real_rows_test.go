package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
)

// TestRealFactors: a metric's factors are its figures over their median,
// in boot order, and the spread is 1.4826 median absolute deviations of
// their logarithms; a metric the cell lacks, or a figure a factor cannot
// be taken of, is an error naming it.
func TestRealFactors(t *testing.T) {
	c := &realCell{Experiment: "e", Variant: "v", Metrics: []string{"a", "b"},
		Boots: [][]float64{{10, 0}, {20, 1}, {40, 2}}}
	fs, spread, err := realFactors(c, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fs, []float64{0.5, 1, 2}) {
		t.Errorf("factors %v, want [0.5 1 2]", fs)
	}
	if want := 1.4826 * math.Log(2); math.Abs(spread-want) > 1e-12 {
		t.Errorf("spread %v, want %v", spread, want)
	}
	for _, m := range []string{"b", "zzz"} {
		if _, _, err := realFactors(c, m); err == nil {
			t.Errorf("metric %s: no error", m)
		}
	}
}

// TestRealHistory: every night of every series is a median of real
// figures of its own variant's metric (so within that metric's range in
// its cell), and only series 0 moves, by the shift, from cpShiftAt on.
func TestRealHistory(t *testing.T) {
	ms := realModels()
	per := cpSeries / len(ms)
	a := realHistory(rand.New(rand.NewPCG(2, 3)), 0)
	b := realHistory(rand.New(rand.NewPCG(2, 3)), 0.5)
	if len(a) != cpSeries {
		t.Fatalf("%d series, want %d", len(a), cpSeries)
	}
	for s := range a {
		cell := ms[s/per].Real
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, boot := range cell.Boots {
			lo, hi = math.Min(lo, boot[s%per]), math.Max(hi, boot[s%per])
		}
		if len(a[s]) != cpNights {
			t.Fatalf("series %d: %d nights", s, len(a[s]))
		}
		for n, x := range a[s] {
			if x < lo || x > hi {
				t.Errorf("series %d night %d: %v outside its metric's %v..%v", s, n, x, lo, hi)
			}
			want := x
			if s == 0 && n >= cpShiftAt {
				want = x * 1.5
			}
			if math.Abs(b[s][n]-want) > 1e-9*math.Abs(want) {
				t.Errorf("series %d night %d: %v shifted is %v, want %v", s, n, x, b[s][n], want)
			}
		}
	}
}

// TestRealMetrics: a resampled boot is one whole boot of its cell, every
// judged metric under its real name, unit and direction as the data set
// states them; a change makes a metric that many times worse: multiplied
// when lower is better, divided when higher is better.
func TestRealMetrics(t *testing.T) {
	cs, err := parseRealBoots(`# a comment
experiment,variant,boot,metric,unit,direction,value
e,v,1,lat,us,lower,10
e,v,1,rate,reads/s,higher,100
e,v,1,n,reads,info,7
e,v,2,lat,us,lower,20
e,v,2,rate,reads/s,higher,200
e,v,2,n,reads,info,8
`)
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if !slices.Equal(c.Metrics, []string{"lat", "rate"}) || !slices.Equal(c.Units, []string{"us", "reads/s"}) ||
		!slices.Equal(c.Dirs, []agentproto.Direction{agentproto.LowerIsBetter, agentproto.HigherIsBetter}) {
		t.Fatalf("metrics %v units %v dirs %v", c.Metrics, c.Units, c.Dirs)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		ms := c.metrics(rng, map[string]float64{"lat": 2, "rate": 4})
		if len(ms) != 2 || ms[0].Name != "lat" || ms[0].Unit != "us" || ms[1].Name != "rate" || ms[1].Direction != agentproto.HigherIsBetter {
			t.Fatalf("boot %v", ms)
		}
		// one whole boot: lat 10 goes with rate 100, lat 20 with 200.
		if !(ms[0].Value == 20 && ms[1].Value == 25) && !(ms[0].Value == 40 && ms[1].Value == 50) {
			t.Errorf("boot %v is not a whole boot of the cell made 2x and 4x worse", ms)
		}
	}
	rs := realResults(rng, c, "x", 3, 1, nil)
	if len(rs) != 3 || len(rs[2].Metrics) != 1 || rs[2].Metrics[0].Name != "lat" || rs[2].Variant != "x" || rs[2].Repetition != 3 {
		t.Errorf("realResults: %+v", rs[2])
	}
}
