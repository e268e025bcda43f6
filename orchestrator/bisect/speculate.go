package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
)

// Speculative builds (Pinpoint builds the next midpoints while the
// current ones run): while a look of a metric bisect boots, the kernels
// of the commits the search may look at next are built, so that the next
// step finds its kernel built. The search never sees it: a speculative
// build only fills the kernel cache (one cache key per commit, config and
// compiler, one workspace per git tree: kernel.Builder), and the step
// that needs the commit takes the build's outcome as its own. So the
// decisions, boots and error rates are those of a bisect without
// speculation (the calibration bench checks it, trial by trial).
//
// Which commits: with a noisy binary search the next commit depends on
// the posterior, not on a fixed halving. The search looks at commit i
// until it is nearly settled; then it goes to the commit nearest even
// odds under the posterior with i's side known. So level 1 is the next
// look's commit under "i is bad" (the culprit at or before i) and under
// "i is good", each computed by the search's own rule (candidates.next)
// on the posterior conditioned on that outcome; level 2 conditions each
// of those on its own outcome in turn (up to four more). They are built
// in order of the chance of their branch.
//
// The budget is explicit: on TCG a build beside a boot takes host cores
// from the guest and its host-clock figures move with it, so the default
// (SpeculationFor) builds only on cores the guests leave free, at make -j
// those cores, or when the guests boot on a cluster's nodes. Speculative
// builds start only while a look boots (never while a step's own build
// runs), one at a time (they share the kernel workspace and its lock),
// and a build still running when the next step needs another commit is
// waited for rather than killed: a killed make can leave a truncated
// object file that a later make of the same build directory takes as up
// to date. They are cancelled with the bisect's context.

// MaxSpeculation is the deepest speculation: two steps ahead.
const MaxSpeculation = 2

// autoSpeculation is bisect.speculate auto's level where builds may run:
// one step ahead. Two steps save little more and waste twice the builds,
// and with long builds they save less (a build for the branch not taken
// holds the workspace): the calibration bench's speculation rows
// (docs/calibration.md).
const autoSpeculation = 1

// Speculation is how far ahead a metric bisect builds, and how.
type Speculation struct {
	// Levels: steps ahead (0 none; 1 the next step's two candidates; 2
	// those and the step after theirs, up to six builds).
	Levels int
	// Jobs is make -j of a speculative build; 0: kernel.jobs.
	Jobs int
	// Why says how Levels was chosen (logged when the bisect starts).
	Why string
}

// SpeculationFor reads bisect.speculate: auto is autoSpeculation when the
// guests leave host cores free (a local executor: hostCores minus one
// core per vCPU of every parallel guest minus one for QEMU's own threads
// and kregress), or boot on another scheduler's nodes, and 0 otherwise.
// An explicit level is taken as given, with the cores the builds get.
func SpeculationFor(cfg *config.Config, hostCores int) (Speculation, error) {
	set := strings.TrimSpace(cfg.Bisect.Speculate)
	levels := -1
	if set != "" && set != "auto" {
		n, err := strconv.Atoi(set)
		if err != nil || n < 0 || n > MaxSpeculation {
			return Speculation{}, fmt.Errorf("bisect.speculate %q: want auto, 0, 1 or 2", cfg.Bisect.Speculate)
		}
		levels = n
	}
	if cfg.Executor.Kind != "" && cfg.Executor.Kind != config.LocalExecutor {
		s := Speculation{Levels: levels, Why: fmt.Sprintf("the cells boot on the %s executor's nodes: builds on this host share no core with a measured guest", cfg.Executor.Kind)}
		if levels < 0 {
			s.Levels = autoSpeculation
		}
		s.Why = fmt.Sprintf("speculative builds %d step(s) ahead: %s", s.Levels, s.Why)
		if s.Levels == 0 {
			s.Why = "no speculative builds (bisect.speculate 0)"
		}
		return s, nil
	}
	guests := max(1, cfg.Executor.Parallel) * cfg.VM.CPUs
	free := hostCores - guests - 1
	use := fmt.Sprintf("%d guest(s) x %d vCPU(s) and one core for QEMU's own threads and kregress leave %d of this host's %d cores", max(1, cfg.Executor.Parallel), cfg.VM.CPUs, max(0, free), hostCores)
	switch {
	case levels == 0:
		return Speculation{Why: "no speculative builds (bisect.speculate 0)"}, nil
	case levels > 0:
		s := Speculation{Levels: levels, Jobs: max(1, free), Why: fmt.Sprintf("speculative builds %d step(s) ahead (bisect.speculate %d) at make -j%d: %s", levels, levels, max(1, free), use)}
		if free < 1 {
			s.Why += ": they share the guests' cores, so the looks' host-clock figures will spread more"
		}
		return s, nil
	case free < 1:
		return Speculation{Why: fmt.Sprintf("no speculative builds: %s free, and a build beside a boot would slow the guest's host-clock figures (bisect.speculate 1 or 2 forces them)", use)}, nil
	}
	return Speculation{Levels: autoSpeculation, Jobs: free, Why: fmt.Sprintf("speculative builds %d step(s) ahead at make -j%d: %s free", autoSpeculation, free, use)}, nil
}

// SpeculationStats says what the speculative builds of one Run did.
type SpeculationStats struct {
	Levels int `json:"levels"`
	// Started counts the speculative builds begun (a cached kernel
	// counts too), Used those a step then took.
	Started int `json:"started"`
	Used    int `json:"used"`
	// Wasted names the commits built (or begun) for nothing: no step
	// looked at them.
	Wasted []string `json:"wasted,omitempty"`
	// Failed counts speculative builds that did not build (a step that
	// takes one reports it as its own build failure); Retried those whose
	// infrastructure failure the step's own build tried again.
	Failed  int `json:"failed,omitempty"`
	Retried int `json:"retried,omitempty"`
	// WaitedSeconds is how long steps' own builds waited for a
	// speculative build of another commit to finish.
	WaitedSeconds float64 `json:"waited_seconds,omitempty"`
}

func (s *SpeculationStats) String() string {
	w := "none wasted"
	if len(s.Wasted) > 0 {
		var short []string
		for _, c := range s.Wasted {
			short = append(short, fmt.Sprintf("%.12s", c))
		}
		w = fmt.Sprintf("%d wasted (%s)", len(s.Wasted), strings.Join(short, ", "))
	}
	return fmt.Sprintf("%d started, %d taken by a step, %s; %d did not build; steps waited %.0f s for them", s.Started, s.Used, w, s.Failed, s.WaitedSeconds)
}

// PlanWatcher is a Prober told, at the start of every look, which
// commits speculation may build during it (in order): the simulator
// (bisectsim) accounts the wall time saved with it.
type PlanWatcher interface {
	SpeculationPlan(commits []string)
}

// jobsBuilder is a Prober that can build with fewer make jobs than its
// experiment's (PipelineProber): speculative builds use the free cores.
type jobsBuilder interface {
	BuildJobs(ctx context.Context, commit string, jobs int) (string, error)
}

// specBuild is one speculative build: done is closed when it ended.
type specBuild struct {
	commit string
	done   chan struct{}
	image  string
	err    error
	used   bool
}

// speculator is a Prober that runs speculative builds beside the looks
// of the Prober it wraps. The search's goroutine calls plan, Build and
// Measure in turn; one worker goroutine runs the builds.
type speculator struct {
	inner  Prober
	sp     Speculation
	report progress.Reporter
	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{}
	exited chan struct{}

	mu       sync.Mutex
	targets  []string // the commits to build, best first
	open     bool     // a look is booting: builds may start
	closed   bool
	builds   map[string]*specBuild
	order    []string // commits in the order their builds started
	inflight *specBuild
	stats    SpeculationStats
}

func newSpeculator(ctx context.Context, p Prober, sp Speculation, report progress.Reporter) *speculator {
	s := &speculator{inner: p, sp: sp, report: report, wake: make(chan struct{}, 1), exited: make(chan struct{}), builds: map[string]*specBuild{}}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.stats.Levels = sp.Levels
	go s.work()
	return s
}

// plan sets the commits worth building next; a queued commit no longer
// among them is dropped (a build already running finishes).
func (s *speculator) plan(commits []string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.targets = append([]string(nil), commits...)
	s.mu.Unlock()
}

// work runs the planned builds, one at a time, while a look boots.
func (s *speculator) work() {
	defer close(s.exited)
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.wake:
		}
		for {
			s.mu.Lock()
			var b *specBuild
			if s.open && !s.closed {
				for _, c := range s.targets {
					if _, ok := s.builds[c]; !ok {
						b = &specBuild{commit: c, done: make(chan struct{})}
						break
					}
				}
			}
			if b == nil {
				closed := s.closed
				s.mu.Unlock()
				if closed {
					return
				}
				break
			}
			s.builds[b.commit] = b
			s.order = append(s.order, b.commit)
			s.inflight = b
			s.stats.Started++
			s.mu.Unlock()

			s.report("bisect: speculative build of %.12s (a look boots meanwhile)", b.commit)
			img, err := s.build(b.commit)

			s.mu.Lock()
			b.image, b.err = img, err
			s.inflight = nil
			if errors.As(err, new(*BuildError)) {
				s.stats.Failed++
			}
			close(b.done)
			s.mu.Unlock()
			if err != nil && s.ctx.Err() == nil {
				s.report("bisect: speculative build of %.12s failed (a step that needs it reports or retries it): %s", b.commit, lines.First(err.Error()))
			}
		}
	}
}

func (s *speculator) build(commit string) (string, error) {
	if jb, ok := s.inner.(jobsBuilder); ok && s.sp.Jobs > 0 {
		return jb.BuildJobs(s.ctx, commit, s.sp.Jobs)
	}
	return s.inner.Build(s.ctx, commit)
}

// Build implements Prober for the search's own builds: a commit built
// speculatively is taken as it is (its image, or its *BuildError); one
// whose speculative build ended otherwise (an infrastructure failure,
// cancelled) is built again. Any other commit waits for a speculative
// build still running (they share the kernel workspace) and is built.
func (s *speculator) Build(ctx context.Context, commit string) (string, error) {
	s.mu.Lock()
	b, in := s.builds[commit], s.inflight
	s.mu.Unlock()
	if b == nil && in != nil {
		start := time.Now()
		s.report("bisect: waiting for the speculative build of %.12s (it holds the kernel workspace) before building %.12s", in.commit, commit)
		if err := s.await(ctx, in); err != nil {
			return "", err
		}
		s.mu.Lock()
		s.stats.WaitedSeconds += time.Since(start).Seconds()
		s.mu.Unlock()
	}
	if b != nil {
		if err := s.await(ctx, b); err != nil {
			return "", err
		}
		if b.err == nil || errors.As(b.err, new(*BuildError)) {
			s.mu.Lock()
			if !b.used {
				b.used = true
				s.stats.Used++
			}
			s.mu.Unlock()
			return b.image, b.err
		}
		s.mu.Lock()
		s.stats.Retried++
		s.mu.Unlock()
	}
	return s.inner.Build(ctx, commit)
}

func (s *speculator) await(ctx context.Context, b *specBuild) error {
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Measure implements Prober: the look boots while planned builds run.
func (s *speculator) Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error) {
	s.mu.Lock()
	s.open = true
	targets := append([]string(nil), s.targets...)
	s.mu.Unlock()
	if w, ok := s.inner.(PlanWatcher); ok {
		w.SpeculationPlan(targets)
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	defer func() {
		s.mu.Lock()
		s.open = false
		s.mu.Unlock()
	}()
	return s.inner.Measure(ctx, step, good, bad, reps)
}

// close ends speculation and returns what it did: no build starts after
// it; one still running is waited for (its kernel is cached for a later
// bisect or the confirmation), or cancelled when abort (the bisect failed
// or was interrupted).
func (s *speculator) close(abort bool) *SpeculationStats {
	s.mu.Lock()
	s.closed, s.targets = true, nil
	s.mu.Unlock()
	if abort {
		s.cancel()
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.exited
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	for _, c := range s.order {
		if !s.builds[c].used {
			st.Wasted = append(st.Wasted, c)
		}
	}
	return &st
}

// given is the posterior with commit i's side known: bad (the culprit at
// or before i) or good. false when no position is left. A measurable
// commit separates blocks, so each block lies on one side of it.
func (c candidates) given(i int, bad bool) (candidates, bool) {
	out := candidates{blocks: c.blocks, ll: make([]float64, len(c.ll))}
	left := false
	for b, ks := range c.blocks {
		if (ks[len(ks)-1] <= i) == bad {
			out.ll[b] = c.ll[b]
			left = true
		} else {
			out.ll[b] = math.Inf(-1)
		}
	}
	return out, left
}

// speculationTargets are the commits the search would look at next after
// commit i settles, levels steps deep, most likely first (none: i itself,
// or a commit no outcome would lead to).
func speculationTargets(c candidates, dead map[int]bool, n, i, levels int) []int {
	type branch struct {
		c  candidates
		p  float64
		at int
	}
	frontier := []branch{{c, 1, i}}
	seen := map[int]bool{i: true}
	var out []int
	for l := 0; l < levels; l++ {
		var next []branch
		for _, b := range frontier {
			pb := b.c.pBad(b.at)
			for _, bad := range []bool{true, false} {
				p := pb
				if !bad {
					p = 1 - pb
				}
				cc, ok := b.c.given(b.at, bad)
				if !ok || !(p > 0) {
					continue
				}
				j, gap := cc.next(dead, n)
				if j < 0 || gap >= 0.5-1e-9 {
					continue // every measurable commit's side is known
				}
				next = append(next, branch{cc, b.p * p, j})
			}
		}
		sort.SliceStable(next, func(a, b int) bool { return next[a].p > next[b].p })
		for _, b := range next {
			if !seen[b.at] {
				seen[b.at] = true
				out = append(out, b.at)
			}
		}
		frontier = next
	}
	return out
}

// planFrom hands the speculator the commits after i, leaving out those
// already built for a step (built: their indexes).
func (s *speculator) planFrom(commits []string, c candidates, dead map[int]bool, i int, built func(int) bool) {
	if s == nil {
		return
	}
	n := len(commits) - 1
	var names []string
	for _, j := range speculationTargets(c, dead, n, i, s.sp.Levels) {
		if !built(j) {
			names = append(names, commits[j])
		}
	}
	s.plan(names)
}
