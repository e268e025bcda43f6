package bisectsim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// The simulator is what the calibration figures rest on: a look's drift
// moves every boot of it alike, a steady trend moves the same way each
// look, the change starts at the culprit, and crashes come only from it.
func TestProber(t *testing.T) {
	p := &Prober{Rng: rand.New(rand.NewPCG(1, 2)), Culprit: 3, Base: 100, Change: 0.1, CV: 0, Drift: 0.02, Trend: true}
	var prev float64
	for look := 0; look < 5; look++ {
		s, err := p.Measure(context.Background(), "c3", "c0", "c8", 4)
		if err != nil {
			t.Fatal(err)
		}
		host := s.Good[0] / 100
		for i := range s.Good {
			if s.Good[i] != s.Good[0] || math.Abs(s.Step[i]/s.Good[i]-1.1) > 1e-12 || s.Bad[i] != s.Step[i] {
				t.Fatalf("look %d: %v %v %v", look, s.Step, s.Good, s.Bad)
			}
		}
		if look > 0 && math.Abs(host-prev*(1+p.dir*0.02)) > 1e-9 {
			t.Fatalf("look %d: host %v after %v", look, host, prev)
		}
		prev = host
	}
	if p.Boots != 5*12 || p.Looks != 5 {
		t.Fatalf("%d boots, %d looks", p.Boots, p.Looks)
	}
	c := &Prober{Rng: rand.New(rand.NewPCG(1, 2)), Culprit: 3, Base: 100, CV: 0.05, CrashRate: 0.5}
	s, _ := c.Measure(context.Background(), "c3", "c2", "", 200)
	if s.GoodCrashed != 0 || s.Crashed < 60 || s.Crashed > 140 || len(s.Bad) != 0 || len(s.Step)+s.Crashed != 200 {
		t.Fatalf("crashes: step %d of 200, good %d", s.Crashed, s.GoodCrashed)
	}
}
