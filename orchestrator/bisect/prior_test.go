package bisect

import (
	"math"
	"testing"
)

// The first midpoint's looks in the endpoints' looks are kept in both
// steps; the prior of a later step takes each once. (Taken twice, the
// change's weight doubled, halving its stated error.)
func TestPriorTakesSharedLooksOnce(t *testing.T) {
	shared := []Look{
		{Step: []float64{1, 1.1}, Good: []float64{1, 1.2}, Bad: []float64{2, 2.1}},
		{Step: []float64{1.05, 0.95}, Good: []float64{1.1, 0.9}, Bad: []float64{2.2, 1.9}},
	}
	own := Look{Step: []float64{1, 1.05, 0.97}, Bad: []float64{2, 2.1, 1.95}}
	steps := []Step{
		{Commit: "c0..c8", Index: -1, Probe: "c4", ProbeIndex: 4, Looks: shared},
		{Commit: "c4", Index: 4, Verdict: Undecided, Looks: append(append([]Look(nil), shared...), own)},
	}
	ls := priorLooks(steps, "")
	if len(ls) != 3 {
		t.Fatalf("prior has %d looks, want the 2 endpoints' looks and the step's own 1: %+v", len(ls), ls)
	}
	sc := scaleOf(ls)
	_, w := endpointChangeW(sc, ls)
	_, wEnd := endpointChangeW(sc, shared)
	if math.Abs(w-wEnd) > 1e-12 {
		t.Errorf("change weight %v, want the endpoints' looks' %v once (an undecided step adds none)", w, wEnd)
	}
	// The first midpoint's own prior leaves out the endpoints' step.
	if ls := priorLooks(steps, "c0..c8"); len(ls) != 3 {
		t.Errorf("prior without the endpoints' step has %d looks, want the midpoint's 3", len(ls))
	}
}

// A called step's looks carry the change within them: a step called bad
// booted with good is one more "bad minus good", one called good booted
// with bad too; the first midpoint's boots join the endpoint it was called
// like in the endpoints' looks.
func TestPriorTakesTheChangeFromCalledSteps(t *testing.T) {
	endLook := Look{Step: []float64{2, 2}, Good: []float64{1, 1}, Bad: []float64{2, 2}}
	steps := []Step{
		{Commit: "c0..c8", Index: -1, Probe: "c4", ProbeIndex: 4, Looks: []Look{endLook}},
		{Commit: "c4", Index: 4, Verdict: Bad, Looks: []Look{endLook, {Step: []float64{2, 2}, Good: []float64{1, 1}}}},
		{Commit: "c2", Index: 2, Verdict: Good, Looks: []Look{{Step: []float64{1, 1}, Bad: []float64{2, 2}}}},
		{Commit: "c3", Index: 3, Verdict: Bad, Looks: []Look{{Step: []float64{2, 2}, Bad: []float64{2, 2}}}},
	}
	ls := priorLooks(steps, "")
	if len(ls) != 4 {
		t.Fatalf("prior has %d looks, want 4: %+v", len(ls), ls)
	}
	both := 0
	for _, l := range ls {
		if len(l.Good) > 0 && len(l.Bad) > 0 {
			both++
			if l.Step != nil {
				t.Errorf("a look turned into an endpoints' look still has step boots: %+v", l)
			}
		}
	}
	// The endpoints' look (midpoint with bad), c4's look with good and
	// c2's look with bad compare both sides; c3's look with bad (it is
	// like bad) says nothing of the change.
	if both != 3 {
		t.Errorf("%d looks compare good with bad, want 3: %+v", both, ls)
	}
	if n := len(ls[0].Bad); n != 4 {
		t.Errorf("the endpoints' look has %d bad boots, want bad's 2 and the midpoint's 2 (called bad)", n)
	}
	sc := scaleOf(ls)
	if d := endpointChange(sc, ls); math.Abs(d-math.Log(2)) > 1e-12 {
		t.Errorf("change %v, want log 2", d)
	}
	// An undecided step adds no change.
	steps[2].Verdict = Undecided
	both = 0
	for _, l := range priorLooks(steps, "") {
		if len(l.Good) > 0 && len(l.Bad) > 0 {
			both++
		}
	}
	if both != 2 {
		t.Errorf("with c2 undecided %d looks compare good with bad, want 2", both)
	}
}
