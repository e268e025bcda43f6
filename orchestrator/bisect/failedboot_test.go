package bisect

import (
	"context"
	"testing"
)

// The pattern of a real bisect on a loaded host: a no-op commit's first
// look loses one of its boots to a guest that missed its boot deadline,
// and the commit that fixes the build between it and the culprit has its
// bzImage. One failed boot is not a skip: the no-op commit is measured
// again, and the culprit is named as a plain bisect names it (a skip of
// the no-op commit, inherited by its twin, left only a range).
func TestOneFailedBootIsNotASkip(t *testing.T) {
	f := newFake(slowFrom(6), 5)
	f.broken[4] = true
	f.image[5] = "image-c3"
	f.flaky[3] = 1
	res, err := Run(context.Background(), f, commits(8), Options{Reps: []int{5, 5}, StepReps: []int{2, 2, 2, 2, 2, 2}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Culprit != "c6" {
		t.Fatalf("culprit %q, range %v, steps %+v", res.Culprit, res.Range, res.Steps)
	}
	for _, s := range res.Steps {
		if (s.Commit == "c3" || s.Commit == "c5") && s.Verdict == Skip {
			t.Fatalf("%s skipped after one failed boot: %s", s.Commit, s.Why)
		}
	}
	if f.measured["c3"] == 0 {
		t.Fatal("the test did not measure the no-op commit: it shows nothing")
	}
}

// endpointLooks are looks that booted both endpoints: good at 100, bad
// at 130, a small spread.
func endpointLooks() []Look {
	var ls []Look
	for i := 0; i < 6; i++ {
		d := float64(i%3) - 1
		ls = append(ls, Look{Good: []float64{100 + d, 101 - d, 99.5}, Bad: []float64{130 - d, 129 + d, 130.5}})
	}
	return ls
}

// "Between" skips the commit for good, so one look - here a single boot,
// the other lost - never decides it, however far from both endpoints it
// lies; looks that each place the commit between still do.
func TestBetweenNeedsMoreThanOneLook(t *testing.T) {
	e := Options{Alpha: 0.05, Range: 8}.stepAlpha() * estMargin
	one := []Look{{Step: []float64{111}, Good: []float64{100, 101}, Crashed: 1}}
	if c := sprt(endpointLooks(), one, e, outlierZ); c.Outcome == Between {
		t.Fatalf("one boot called between: %s", c.String())
	}
	var three []Look
	for i := 0; i < 3; i++ {
		d := float64(i) - 1
		three = append(three, Look{Step: []float64{114 + d, 115 - d}, Good: []float64{100 + d, 100.5 - d}})
	}
	if c := sprt(endpointLooks(), three, e, outlierZ); c.Outcome != Between {
		t.Fatalf("three looks halfway, not between: %s", c.String())
	}
	// One look of the three far off is not enough either way.
	mixed := append(append([]Look(nil), three[:1]...), Look{Step: []float64{100, 100.5}, Good: []float64{100, 100.5}})
	if c := sprt(endpointLooks(), mixed, e, outlierZ); c.Outcome == Between {
		t.Fatalf("one look between, one like good, called between: %s", c.String())
	}
}
