package bisectsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
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

// trials bisects 16 commits trials times with p's noise (a fresh
// culprit each, two when two is set) and counts the named culprits that
// are right (either change) and wrong, and the answers that said more
// than one change.
func trials(t *testing.T, n int, p Prober, two bool) (right, wrong, said int) {
	t.Helper()
	for i := 0; i < n; i++ {
		q := p
		q.Rng = rand.New(rand.NewPCG(7, uint64(i)))
		q.Culprit = 1 + q.Rng.IntN(16)
		if two {
			q.Culprit = 1 + q.Rng.IntN(15)
			q.Culprit2 = q.Culprit + 1 + q.Rng.IntN(16-q.Culprit)
		}
		res, err := bisect.Run(context.Background(), &q, Commits(16), bisect.Options{}, nil, nil)
		if err != nil && res == nil {
			t.Fatal(err)
		}
		switch res.Culprit {
		case "":
		case fmt.Sprintf("c%d", q.Culprit), fmt.Sprintf("c%d", q.Culprit2):
			right++
		default:
			wrong++
		}
		if res.MoreChanges != nil {
			said++
		}
	}
	return right, wrong, said
}

// 5% of boots at 3x their figure: a Gaussian likelihood reads an outlier
// as a change and names a wrong commit or none; the search sets them
// aside.
func TestOutlierBoots(t *testing.T) {
	right, wrong, _ := trials(t, 100, Prober{Base: 100, Change: 0.1, CV: 0.05, OutlierRate: 0.05, OutlierFactor: 3}, false)
	if right < 88 || wrong > 4 {
		t.Fatalf("with outlier boots: %d right, %d wrong of 100", right, wrong)
	}
}

// A change that adds a fixed delay to a noisy figure (the e2e fixture's
// udelay(200) on a rstat lock held about 4 us): the bad kernel's
// logarithms are about 100 times quieter than good's. The outlier screen
// once read one spread from every pair of boots, the quiet endpoint's,
// and left out every boot of good and of each commit like it; such a
// commit was measured to its cap and skipped, and the bisect named no
// culprit.
func TestAddedDelay(t *testing.T) {
	right, wrong, _ := trials(t, 100, Prober{Base: 3.7, LogSigma: 0.3, Added: 200, AddedCV: 0.003}, false)
	t.Logf("%d right, %d wrong", right, wrong)
	if right < 95 || wrong > 2 {
		t.Fatalf("a fixed delay added: %d right, %d wrong of 100", right, wrong)
	}
}

// Two changes in the range: a commit between them is like neither
// endpoint; it must not be named, and the answer says more than one
// change.
func TestTwoChanges(t *testing.T) {
	right, wrong, said := trials(t, 100, Prober{Base: 100, Change: 0.1, CV: 0.05}, true)
	if wrong > 4 || said < 70 {
		t.Fatalf("two changes: %d right, %d a third commit, %d said more than one change, of 100", right, wrong, said)
	}
}

// TestResample: with Resample set, every boot's figure is Base times one
// of its factors (times the change from the culprit on), and the draw
// reaches each factor.
func TestResample(t *testing.T) {
	factors := []float64{0.5, 1, 1, 3}
	p := &Prober{Rng: rand.New(rand.NewPCG(3, 4)), Culprit: 2, Base: 100, Change: 0.1, CV: 0.05, Resample: factors}
	s, err := p.Measure(context.Background(), "c2", "c0", "", 400)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[float64]int{}
	for i, x := range s.Good {
		y := s.Step[i] / 1.1
		for _, v := range []float64{x / 100, y / 100} {
			ok := false
			for _, f := range factors {
				if math.Abs(v-f) < 1e-9 {
					ok, seen[f] = true, seen[f]+1
				}
			}
			if !ok {
				t.Fatalf("boot %d: factor %v is none of %v", i, v, factors)
			}
		}
	}
	if len(seen) != 3 || seen[1] < seen[3] {
		t.Fatalf("factors drawn %v, want all of %v (1 twice as often)", seen, factors)
	}
}

// A revert point (Revert, AddPoint) is the bad endpoint without the
// reverted change: of two changes, reverting one leaves the other;
// reverting a commit that changed nothing leaves bad as it is.
func TestRevert(t *testing.T) {
	p := &Prober{Rng: rand.New(rand.NewPCG(1, 3)), Culprit: 3, Culprit2: 6, Base: 100, Change: 0.1}
	for _, c := range []struct {
		culprit string
		want    float64
	}{{"c3", 110}, {"c6", 110}, {"c4", 121}} {
		pt, _, err := Revert(context.Background(), nil, c.culprit)
		if err != nil {
			t.Fatal(err)
		}
		name := "revert:" + c.culprit
		p.AddPoint(name, pt)
		if _, err := p.Build(context.Background(), name); err != nil {
			t.Fatal(err)
		}
		s, err := p.Measure(context.Background(), name, "", "", 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range s.Step {
			if math.Abs(x-c.want) > 1e-9 {
				t.Errorf("%s reverted: %v, want %v", c.culprit, s.Step, c.want)
			}
		}
	}
}
