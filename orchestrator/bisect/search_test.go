package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// fakeProber: commit ci's metric is value(i) plus noise; some commits do
// not build, some share an image, some crash.
type fakeProber struct {
	rng     *rand.Rand
	value   func(i int) float64
	sd      float64
	broken  map[int]bool
	image   map[int]string
	crashes map[int]bool
	// failEvery: the step's kernel fails in every boot (no figures);
	// flaky: how many more looks of the step lose one boot to a failure.
	failEvery map[int]bool
	flaky     map[int]int
	measured  map[string]int // commit -> boots
	builds    int
}

func newFake(value func(int) float64, sd float64) *fakeProber {
	return &fakeProber{rng: rand.New(rand.NewPCG(5, 5)), value: value, sd: sd, broken: map[int]bool{}, image: map[int]string{}, crashes: map[int]bool{}, failEvery: map[int]bool{}, flaky: map[int]int{}, measured: map[string]int{}}
}

func idx(c string) int { var i int; fmt.Sscanf(c, "c%d", &i); return i }

func (f *fakeProber) Build(ctx context.Context, c string) (string, error) {
	f.builds++
	if f.broken[idx(c)] {
		return "", &BuildError{Commit: c, Err: errors.New("kernel/cgroup/rstat.c:12: error: expected ';'")}
	}
	if im, ok := f.image[idx(c)]; ok {
		return im, nil
	}
	return "image-" + c, nil
}

func (f *fakeProber) draw(c string, n int) []float64 {
	var out []float64
	for k := 0; k < n; k++ {
		out = append(out, f.value(idx(c))+f.sd*f.rng.NormFloat64())
	}
	f.measured[c] += n
	return out
}

func (f *fakeProber) Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error) {
	s := &Samples{}
	if good != "" {
		s.Good = f.draw(good, reps)
		if f.crashes[idx(good)] {
			s.GoodCrashed = reps
		}
	}
	if bad != "" {
		s.Bad = f.draw(bad, reps)
		if f.crashes[idx(bad)] {
			s.BadCrashed = reps
		}
	}
	if step != "" {
		i := idx(step)
		switch {
		case f.failEvery[i]:
			s.Crashed = reps
			f.measured[step] += reps
		case f.flaky[i] > 0:
			f.flaky[i]--
			s.Crashed = 1
			f.measured[step]++
			s.Step = f.draw(step, reps-1)
		default:
			if f.crashes[i] {
				s.Crashed = 1
			}
			s.Step = f.draw(step, reps)
		}
	}
	return s, nil
}

func commits(n int) []string {
	var cs []string
	for i := 0; i <= n; i++ {
		cs = append(cs, fmt.Sprintf("c%d", i))
	}
	return cs
}

func slowFrom(k int) func(int) float64 {
	return func(i int) float64 {
		if i >= k {
			return 130
		}
		return 100
	}
}

// 8 commits, the 5th slows the path by 30% (noise 5%), the 3rd does not
// build: the culprit is named, the broken one skipped, within log2(n)+3.
func TestFindsCulpritSkippingBrokenBuild(t *testing.T) {
	f := newFake(slowFrom(5), 5)
	f.broken[3] = true
	res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Culprit != "c5" {
		t.Fatalf("culprit %q, steps %+v", res.Culprit, res.Steps)
	}
	for _, s := range res.Steps {
		if s.Commit == "c3" && (s.Verdict != Skip || !strings.Contains(s.Why, "does not build")) {
			t.Fatalf("c3 does not build, yet: %+v", s)
		}
	}
	if max := int(math.Log2(8)) + 3; res.Measured > max || res.Confidence <= 0 {
		t.Fatalf("%d measured steps (max %d), confidence %.2f", res.Measured, max, res.Confidence)
	}
}

func TestBrokenCommitInTheWayIsSkipped(t *testing.T) {
	f := newFake(slowFrom(6), 5)
	f.broken[4] = true // the midpoint of 0..8
	res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c6" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	if s := res.Steps[1]; s.Commit != "c4" || s.Verdict != Skip {
		t.Fatalf("first step %+v", s)
	}
}

// When the skip sits right before the culprit, no single answer exists.
func TestSkipsLeaveARange(t *testing.T) {
	f := newFake(slowFrom(5), 5)
	f.broken[4] = true
	f.crashes[5] = true
	res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "" || strings.Join(res.Range, ",") != "c4,c5,c6" && strings.Join(res.Range, ",") != "c4,c5" {
		t.Fatalf("culprit %q range %v: %v", res.Culprit, res.Range, err)
	}
}

func TestAllSkippedIsInconclusive(t *testing.T) {
	f := newFake(slowFrom(5), 5)
	for i := 1; i < 8; i++ {
		f.broken[i] = true
	}
	res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "" || len(res.Range) != 8 || res.Measured != 0 {
		t.Fatalf("culprit %q range %v measured %d: %v", res.Culprit, res.Range, res.Measured, err)
	}
}

// With nothing changed between good and bad, the bisect stops after the
// endpoints ("does not reproduce") in at least 1 - alpha of the cases.
func TestNoDifferenceDoesNotReproduce(t *testing.T) {
	const bisects = 200
	stopped := 0
	for b := 0; b < bisects; b++ {
		f := newFake(func(int) float64 { return 100 }, 5)
		f.rng = rand.New(rand.NewPCG(uint64(b), 1))
		res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
		// Built: the endpoints and the first midpoint, booted alongside
		// them; no step measured.
		if errors.Is(err, ErrNotReproduced) && !res.Reproduced && f.builds <= 3 && res.Measured == 0 {
			stopped++
		}
	}
	t.Logf("nothing changed: %d of %d bisects stop at the endpoints", stopped, bisects)
	if float64(stopped)/bisects < 0.95-3*math.Sqrt(0.05*0.95/bisects) {
		t.Fatalf("only %d of %d null bisects stopped", stopped, bisects)
	}
}

// Ties: every boot of a kernel gives the same figure.
func TestTies(t *testing.T) {
	f := newFake(slowFrom(3), 0)
	res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c3" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
}

// A commit halfway between good and bad differs from both: its first
// look does not call it, so it is measured again; once its looks place
// it between the endpoints it is skipped rather than called good or bad,
// and never booted after that.
func TestUndecidedMeasuresAgainThenSkips(t *testing.T) {
	f := newFake(func(i int) float64 {
		switch {
		case i >= 5:
			return 130
		case i == 4:
			return 115
		}
		return 100
	}, 3)
	res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s4 *Step
	for i := range res.Steps {
		if res.Steps[i].Commit == "c4" {
			s4 = &res.Steps[i]
		}
	}
	if s4 == nil || s4.Verdict != Undecided || !strings.Contains(s4.Why, "between the endpoints") {
		t.Fatalf("c4: %+v", s4)
	}
	if len(s4.Looks) < 2 {
		t.Errorf("c4 was skipped after %d look(s) of %d boots: not measured again", len(s4.Looks), s4.N)
	}
	boots := 0
	for _, l := range s4.Looks {
		boots += l.StepBoots
	}
	if f.measured["c4"] != boots || s4.N != boots {
		t.Errorf("c4 booted %d times, its looks hold %d boots (n=%d): booted again after it was skipped", f.measured["c4"], boots, s4.N)
	}
	if res.Culprit != "" && res.Culprit != "c5" {
		t.Fatalf("culprit %q", res.Culprit)
	}
}

// Two commits with the same bzImage: the second reuses the verdict.
func TestSameImageNotBooted(t *testing.T) {
	f := newFake(slowFrom(6), 5)
	f.image[4], f.image[5] = "same", "same"
	res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c6" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	if f.measured["c5"] != 0 {
		t.Fatalf("c5 (same image as c4) was booted %d times", f.measured["c5"])
	}
}

// An interrupted bisect resumes from its saved steps without measuring
// them again.
func TestResume(t *testing.T) {
	f := newFake(slowFrom(5), 5)
	ctx, cancel := context.WithCancel(context.Background())
	var saved *Result
	_, err := Run(ctx, f, commits(8), Options{}, nil, func(r *Result) {
		saved = r
		if len(r.Steps) == 2 { // endpoints and one step
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	before := f.measured["c4"]
	res, err := Run(context.Background(), f, commits(8), Options{}, saved.Steps, nil)
	if err != nil || res.Culprit != "c5" || f.measured["c4"] != before {
		t.Fatalf("resumed: culprit %q, c4 measured %d then %d: %v", res.Culprit, before, f.measured["c4"], err)
	}
}

// The stated false-call rate: with a real 30% step and noise 5%, how
// often is the wrong commit named? Logged for the README.
func TestWrongCallRate(t *testing.T) {
	const bisects = 200
	wrong, inconclusive, steps := 0, 0, 0
	for b := 0; b < bisects; b++ {
		f := newFake(slowFrom(1+b%8), 10)
		f.rng = rand.New(rand.NewPCG(uint64(b), 9))
		res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
		if err != nil && !errors.Is(err, ErrNotReproduced) {
			t.Fatal(err)
		}
		steps += res.Measured
		switch {
		case res.Culprit == "":
			inconclusive++
		case res.Culprit != fmt.Sprintf("c%d", 1+b%8):
			wrong++
		}
	}
	t.Logf("%d bisects over 8 commits, +30%% step, noise sd 10%%: %d wrong culprit, %d inconclusive, %.1f measured steps on average", bisects, wrong, inconclusive, float64(steps)/bisects)
	if float64(wrong)/bisects > 0.05 {
		t.Fatalf("wrong culprit in %d of %d bisects", wrong, bisects)
	}
}

// Crash mode: the first commit whose kernel fails is named; a good
// endpoint that fails, or a bad one that does not, does not reproduce.
func TestCrashMode(t *testing.T) {
	f := newFake(func(int) float64 { return 100 }, 5)
	for i := 6; i <= 8; i++ {
		f.crashes[i] = true
	}
	res, err := Run(context.Background(), f, commits(8), Options{Crash: true}, nil, nil)
	if err != nil || res.Culprit != "c6" {
		t.Fatalf("culprit %q: %v (%+v)", res.Culprit, err, res.Steps)
	}
	g := newFake(func(int) float64 { return 100 }, 5)
	if _, err := Run(context.Background(), g, commits(8), Options{Crash: true}, nil, nil); !errors.Is(err, ErrNotReproduced) {
		t.Fatalf("no crash anywhere: %v", err)
	}
}

// One step as git bisect run drives it: exit-code verdicts.
func TestStepOnce(t *testing.T) {
	f := newFake(slowFrom(5), 5)
	f.broken[3] = true
	for c, want := range map[string]Verdict{"c2": Good, "c6": Bad, "c3": Skip} {
		s, err := StepOnce(context.Background(), f, c, "c0", "c8", Options{})
		if err != nil || s.Verdict != want {
			t.Errorf("%s: %s (%s) %v, want %s", c, s.Verdict, s.Why, err, want)
		}
	}
}

// The first midpoint boots in the endpoints' looks: its first looks are
// theirs (no endpoint boots of its own for them); a midpoint whose
// kernel fails in one cell there is judged by its other boots, one whose
// kernel fails in every boot is skipped without more boots.
func TestFirstMidpointRidesWithEndpoints(t *testing.T) {
	f := newFake(slowFrom(6), 5)
	res, err := Run(context.Background(), f, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c6" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	end, first := res.Steps[0], res.Steps[1]
	if end.Probe != "c4" || first.Commit != "c4" || len(first.Looks) < len(end.Looks) {
		t.Fatalf("endpoints probed %q; first step %s with %d looks against the endpoints' %d", end.Probe, first.Commit, len(first.Looks), len(end.Looks))
	}
	for i, l := range end.Looks {
		if len(l.Step) == 0 || fmt.Sprint(l.Good) != fmt.Sprint(first.Looks[i].Good) || fmt.Sprint(l.Step) != fmt.Sprint(first.Looks[i].Step) {
			t.Fatalf("look %d: the endpoints' look and the first step's differ", i)
		}
	}
	g := newFake(slowFrom(6), 5)
	g.crashes[4] = true
	res, err = Run(context.Background(), g, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c6" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	if s := res.Steps[1]; s.Commit != "c4" || s.Verdict != Good {
		t.Fatalf("midpoint failing one cell: %s %s (%s)", s.Commit, s.Verdict, s.Why)
	}
	h := newFake(slowFrom(6), 5)
	h.failEvery[4] = true
	res, err = Run(context.Background(), h, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c6" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	if s := res.Steps[1]; s.Commit != "c4" || s.Verdict != Skip || h.measured["c4"] != res.Steps[0].Looks[0].StepBoots {
		t.Fatalf("failing midpoint: %s %s (%s), booted %d", s.Commit, s.Verdict, s.Why, h.measured["c4"])
	}
}

// recorder notes which points each look booted.
type recorder struct {
	*fakeProber
	calls [][3]string
}

func (r *recorder) Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error) {
	r.calls = append(r.calls, [3]string{step, good, bad})
	return r.fakeProber.Measure(ctx, step, good, bad, reps)
}

// Once the endpoints' looks have measured their change, a step's look
// boots the step with one endpoint only, good and bad in turn: two boots
// in three of a look with both. (Before, every look booted both.)
func TestStepLooksBootOneEndpoint(t *testing.T) {
	// Noise large enough that steps need more than one look.
	r := &recorder{fakeProber: newFake(slowFrom(11), 12)}
	res, err := Run(context.Background(), r, commits(16), Options{}, nil, nil)
	if err != nil || res.Culprit != "c11" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	ends := len(res.Steps[0].Looks)
	seen := map[string][]string{}
	for i, c := range r.calls {
		if i < ends {
			if c[1] == "" || c[2] == "" {
				t.Fatalf("endpoints' look %d booted %q", i, c)
			}
			continue
		}
		if c[0] == "" || (c[1] == "") == (c[2] == "") {
			t.Fatalf("step look %d booted %q: want the step and exactly one endpoint", i, c)
		}
		ref := "good"
		if c[1] == "" {
			ref = "bad"
		}
		seen[c[0]] = append(seen[c[0]], ref)
	}
	if len(seen) == 0 {
		t.Fatal("no step looks after the endpoints'")
	}
	alternated := false
	for step, refs := range seen {
		for k := 1; k < len(refs); k++ {
			if refs[k] == refs[k-1] && step != res.Steps[0].Probe {
				t.Fatalf("%s's looks booted %v: want good and bad in turn", step, refs)
			}
			alternated = true
		}
	}
	if !alternated {
		t.Fatalf("no step took two one-endpoint looks (%v): the test shows nothing", seen)
	}
}

// The one-endpoint comparison is placed by the estimated change: a step
// like bad measured only against good is "different", a step like good
// measured only against bad is "same".
func TestOneEndpointLooksCall(t *testing.T) {
	draw := boots(rand.New(rand.NewPCG(9, 9)), 0.03)
	prior := []Look{{Good: draw(100, 5), Bad: draw(110, 5)}, {Good: draw(100, 5), Bad: draw(110, 5)}}
	e := 0.01
	var likeBad, likeGood []Look
	for k := 0; k < 4; k++ {
		// A look 30% slower throughout: it cancels within the look.
		h := 1 + 0.3*float64(k)
		likeBad = append(likeBad, Look{Step: draw(110*h, 3), Good: draw(100*h, 3)})
		likeGood = append(likeGood, Look{Step: draw(100*h, 3), Bad: draw(110*h, 3)})
	}
	if c := sprt(prior, likeBad, e, outlierZ); c.Outcome != Different {
		t.Errorf("like bad against good only: %s", c.String())
	}
	if c := sprt(prior, likeGood, e, outlierZ); c.Outcome != Same {
		t.Errorf("like good against bad only: %s", c.String())
	}
}

// Options.OutlierZ +Inf turns the outlier screen off: a step like good
// whose looks hold one boot at 3x is then pulled most of the way to bad
// (the plain Gaussian likelihood), where the default screen sets the
// boot aside and calls it like good.
func TestOutlierZOff(t *testing.T) {
	draw := boots(rand.New(rand.NewPCG(9, 10)), 0.03)
	prior := []Look{{Good: draw(100, 5), Bad: draw(110, 5)}, {Good: draw(100, 5), Bad: draw(110, 5)}}
	var looks []Look
	for k := 0; k < 4; k++ {
		looks = append(looks, Look{Step: draw(100, 3), Bad: draw(110, 3)})
	}
	looks[0].Step[0] *= 3
	if z := (Options{}).outlierZ(); z != outlierZ {
		t.Fatalf("default OutlierZ reads %v, want %v", z, outlierZ)
	}
	on := sprt(prior, looks, 0.01, (Options{}).outlierZ())
	off := sprt(prior, looks, 0.01, (Options{OutlierZ: math.Inf(1)}).outlierZ())
	if on.Outcome != Same {
		t.Errorf("screened: %s, want same", on.String())
	}
	if off.Outcome == Same || off.Position < 0.5 {
		t.Errorf("unscreened: %s, want the 3x boot to pull it toward bad", off.String())
	}
}
