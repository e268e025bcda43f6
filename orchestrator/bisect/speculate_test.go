package bisect_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/bisect/bisectsim"
	"github.com/kregress/kregress/orchestrator/config"
)

// recorder is a fake builder over the simulator's boots: it numbers every
// Build and every look's start and end in one sequence, so the tests can
// say what was built before which look ended. While plan is set (the
// speculator told it), a look waits until every planned commit has been
// built, so that what a speculative worker may do during a look, it has
// done, whatever the goroutines' timing.
type recorder struct {
	sim *bisectsim.Prober

	mu      sync.Mutex
	seq     int
	booting bool
	builds  []build
	looks   []look
	plan    []string
	calls   map[string]int
	// fail: the Build of a commit during a look (speculative) returns
	// this; unbuildable: every Build of the commit is a *BuildError.
	fail        error
	unbuildable string
	// hold: speculative builds wait for it to close (or their context);
	// the looks then do not wait for the plan.
	hold chan struct{}
	// active counts builds running now.
	active int
}

type build struct {
	commit string
	seq    int
	inLook bool
}

type look struct {
	step       string
	start, end int
	// running: builds still running when the look ended.
	running int
}

func newRecorder(seed uint64, culprit int) *recorder {
	return &recorder{sim: &bisectsim.Prober{Rng: rand.New(rand.NewPCG(seed, 9)), Culprit: culprit, Base: 100, Change: 0.1, CV: 0.05}, calls: map[string]int{}}
}

func (r *recorder) Build(ctx context.Context, c string) (string, error) {
	r.mu.Lock()
	r.seq++
	r.builds = append(r.builds, build{commit: c, seq: r.seq, inLook: r.booting})
	r.calls[c]++
	spec := r.booting
	r.active++
	hold := r.hold
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.active--
		r.mu.Unlock()
	}()
	if spec && hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if c == r.unbuildable {
		return "", &bisect.BuildError{Commit: c, Err: errors.New("error: implicit declaration")}
	}
	if spec && r.fail != nil {
		return "", r.fail
	}
	return r.sim.Build(ctx, c)
}

func (r *recorder) SpeculationPlan(commits []string) {
	r.mu.Lock()
	// Told before the worker may start: from here builds are a look's.
	r.plan, r.booting = append([]string(nil), commits...), true
	r.mu.Unlock()
	r.sim.SpeculationPlan(commits)
}

func (r *recorder) Measure(ctx context.Context, step, good, bad string, reps int) (*bisect.Samples, error) {
	r.mu.Lock()
	r.seq++
	r.booting = true
	l := look{step: step, start: r.seq}
	plan, hold := r.plan, r.hold
	r.plan = nil
	r.mu.Unlock()
	if hold != nil && len(plan) > 0 {
		// Wait (bounded) until a speculative build runs: the look then
		// ends while it does.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(time.Millisecond) {
			r.mu.Lock()
			a := r.active
			r.mu.Unlock()
			if a > 0 {
				break
			}
		}
	}
	if hold == nil {
		// Wait (bounded, and not past the bisect's cancel) until every
		// planned commit was built.
		deadline := time.Now().Add(20 * time.Second)
		for {
			r.mu.Lock()
			left := 0
			for _, c := range plan {
				if r.calls[c] == 0 {
					left++
				}
			}
			r.mu.Unlock()
			if left == 0 || time.Now().After(deadline) || ctx.Err() != nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		// And until the last of them has returned.
		for time.Now().Before(deadline) && ctx.Err() == nil {
			r.mu.Lock()
			a := r.active
			r.mu.Unlock()
			if a == 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	s, err := r.sim.Measure(ctx, step, good, bad, reps)
	r.mu.Lock()
	r.seq++
	r.booting = false
	l.end, l.running = r.seq, r.active
	r.looks = append(r.looks, l)
	r.mu.Unlock()
	return s, err
}

func runRecorded(t *testing.T, r *recorder, levels int) *bisect.Result {
	t.Helper()
	res, err := bisect.Run(context.Background(), r, bisectsim.Commits(16), bisect.Options{Speculate: bisect.Speculation{Levels: levels}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// stepCommits are the commits the search looked at or built as steps.
func stepCommits(res *bisect.Result) map[string]bool {
	m := map[string]bool{"c0": true, "c16": true}
	for _, s := range res.Steps {
		if s.Index >= 0 {
			m[s.Commit] = true
		}
	}
	return m
}

func sameSearch(t *testing.T, a, b *bisect.Result) {
	t.Helper()
	if a.Culprit != b.Culprit || len(a.Steps) != len(b.Steps) {
		t.Fatalf("speculation changed the search: culprit %s (%d steps) against %s (%d steps)", a.Culprit, len(a.Steps), b.Culprit, len(b.Steps))
	}
	for i := range a.Steps {
		x, y := a.Steps[i], b.Steps[i]
		if x.Commit != y.Commit || x.Verdict != y.Verdict || x.N != y.N || len(x.Looks) != len(y.Looks) {
			t.Fatalf("step %d: %s %s n=%d against %s %s n=%d", i, x.Commit, x.Verdict, x.N, y.Commit, y.Verdict, y.N)
		}
	}
}

// With bisect.speculate 2 the kernels of later steps are built while an
// earlier look boots, the search's decisions are those of a bisect
// without speculation, and the builds no step used are counted as
// wasted; with 0 nothing is built but the steps.
func TestSpeculativeBuilds(t *testing.T) {
	for _, culprit := range []int{3, 9, 14} {
		off := newRecorder(uint64(culprit), culprit)
		plain := runRecorded(t, off, 0)
		on := newRecorder(uint64(culprit), culprit)
		spec := runRecorded(t, on, 2)
		sameSearch(t, plain, spec)

		// (b) speculate 0: each step's commit built once, none during a look.
		steps := stepCommits(plain)
		for _, b := range off.builds {
			if b.inLook || !steps[b.commit] {
				t.Errorf("culprit %d, speculate 0: %s built (during a look: %v) though no step needs it", culprit, b.commit, b.inLook)
			}
		}
		for c := range steps {
			if off.calls[c] != 1 {
				t.Errorf("culprit %d, speculate 0: %s built %d times", culprit, c, off.calls[c])
			}
		}
		if plain.Speculation != nil {
			t.Errorf("speculate 0 reports speculation: %+v", plain.Speculation)
		}

		// (a) a later step's build started before an earlier look ended.
		firstBuild := map[string]int{}
		for _, b := range on.builds {
			if _, ok := firstBuild[b.commit]; !ok {
				firstBuild[b.commit] = b.seq
			}
		}
		ahead := 0
		for _, s := range spec.Steps {
			if s.Index < 0 || s.Commit == spec.Steps[0].Probe {
				continue
			}
			for k, l := range on.looks {
				if l.step == s.Commit {
					if k > 0 && firstBuild[s.Commit] < on.looks[k-1].end {
						ahead++
					}
					break
				}
			}
		}
		if ahead == 0 {
			t.Errorf("culprit %d, speculate 2: no step's kernel was built before the look before it ended", culprit)
		}

		// (c) wasted builds: built during a look, never a step.
		var want []string
		spec2 := map[string]bool{}
		for _, b := range on.builds {
			if b.inLook && !spec2[b.commit] {
				spec2[b.commit] = true
				if !steps[b.commit] {
					want = append(want, b.commit)
				}
			}
		}
		st := spec.Speculation
		if st == nil {
			t.Fatalf("culprit %d: no speculation reported", culprit)
		}
		got := append([]string(nil), st.Wasted...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") || st.Started != len(spec2) || st.Used != len(spec2)-len(want) {
			t.Errorf("culprit %d: reported %d started, %d used, wasted %v; the builder saw %d speculative builds, wasted %v", culprit, st.Started, st.Used, got, len(spec2), want)
		}
		if len(want) == 0 {
			t.Errorf("culprit %d: two levels ahead wasted no build: the count is not exercised", culprit)
		}
		t.Logf("culprit %d: %d of %d later steps built ahead; %s", culprit, ahead, len(spec.Steps)-2, st)
	}
}

// A speculative build that fails for the infrastructure is built again
// by the step that needs it; one that does not build is that step's
// build failure (a skip), taken without building again. Neither fails
// the bisect or changes it.
func TestFailedSpeculativeBuilds(t *testing.T) {
	plain := runRecorded(t, newRecorder(7, 9), 0)
	r := newRecorder(7, 9)
	r.fail = errors.New("no space left on device")
	res := runRecorded(t, r, 1)
	sameSearch(t, plain, res)
	if res.Speculation.Retried == 0 || res.Speculation.Used != 0 {
		t.Errorf("every speculative build failed: %+v", res.Speculation)
	}

	// c12 does not build; with the culprit at 9 the search steps on it
	// after c8 (good), and speculation built it first.
	off := newRecorder(7, 9)
	off.unbuildable = "c12"
	plain = runRecorded(t, off, 0)
	on := newRecorder(7, 9)
	on.unbuildable = "c12"
	res = runRecorded(t, on, 1)
	sameSearch(t, plain, res)
	skipped := false
	for _, s := range res.Steps {
		skipped = skipped || (s.Commit == "c12" && s.Verdict == bisect.Skip && strings.Contains(s.Why, "does not build"))
	}
	if !skipped || on.calls["c12"] != 1 || res.Speculation.Failed != 1 {
		t.Errorf("c12: skipped %v, built %d times, %d failed speculative builds; want a skip from one build", skipped, on.calls["c12"], res.Speculation.Failed)
	}
}

// A speculative build never holds up a look: the looks end while it
// runs; cancelling the bisect cancels it, and Run returns with no build
// left running.
func TestSpeculationNeverBlocksALook(t *testing.T) {
	r := newRecorder(3, 9)
	r.hold = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := bisect.Run(ctx, r, bisectsim.Commits(16), bisect.Options{Speculate: bisect.Speculation{Levels: 1}}, nil, nil)
		done <- err
	}()
	// The endpoints' looks end while the first speculative build holds.
	deadline := time.Now().Add(20 * time.Second)
	for {
		r.mu.Lock()
		ended := 0
		for _, l := range r.looks {
			if l.running > 0 {
				ended++
			}
		}
		r.mu.Unlock()
		if ended >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no look ended while a speculative build ran")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run after cancel: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active != 0 {
		t.Errorf("%d build(s) still running after Run returned", r.active)
	}
}

// The default budget: no speculation where the guests take every core,
// one step ahead on the cores they leave free (at make -j those), and on
// a cluster's nodes; an explicit level is taken, out of range refused.
func TestSpeculationFor(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set          string
		kind         string
		cores, vcpus int
		levels, jobs int
		why          string
	}{
		{"auto", "local", 2, 2, 0, 0, "no speculative builds: 1 guest(s) x 2 vCPU(s)"},
		{"auto", "local", 16, 8, 1, 7, "make -j7"},
		{"", "local", 4, 2, 1, 1, "make -j1"},
		{"auto", "slurm", 2, 2, 1, 0, "slurm executor's nodes"},
		{"2", "local", 2, 2, 2, 1, "share the guests' cores"},
		{"0", "slurm", 64, 2, 0, 0, "bisect.speculate 0"},
	} {
		c := *cfg
		c.Bisect.Speculate, c.Executor.Kind, c.VM.CPUs = tc.set, tc.kind, tc.vcpus
		s, err := bisect.SpeculationFor(&c, tc.cores)
		if err != nil {
			t.Fatal(err)
		}
		if s.Levels != tc.levels || s.Jobs != tc.jobs || !strings.Contains(s.Why, tc.why) {
			t.Errorf("%q %s, %d cores, %d vCPUs: %+v; want levels %d, jobs %d, why with %q", tc.set, tc.kind, tc.cores, tc.vcpus, s, tc.levels, tc.jobs, tc.why)
		}
	}
	c := *cfg
	c.Bisect.Speculate = "3"
	if _, err := bisect.SpeculationFor(&c, 8); err == nil {
		t.Error("bisect.speculate 3 accepted")
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "bisect.speculate") {
		t.Errorf("Validate with bisect.speculate 3: %v", err)
	}
	if _, err := bisect.Run(context.Background(), newRecorder(1, 3), bisectsim.Commits(8), bisect.Options{Speculate: bisect.Speculation{Levels: 3}}, nil, nil); !errors.Is(err, bisect.ErrBadOptions) {
		t.Errorf("Run with 3 levels: %v", err)
	}
}
