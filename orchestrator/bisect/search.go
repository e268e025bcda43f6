// Package bisect finds the commit (or the patch of a series) that changed
// a metric, with a statistical verdict at every step. Each step's kernel
// is booted interleaved with fresh boots of both endpoints and its
// samples are compared with theirs: like good, like bad, or undecided -
// and undecided measures again (adaptively, with alpha split over the
// looks) instead of guessing. A build failure or a crash is a skip, as
// git bisect run's 125; the same bzImage as a commit already measured
// reuses its verdict. Models: syzkaller's pkg/bisect (skips, identical
// kernels) and Chromium Pinpoint (repeated samples, three outcomes).
package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/kregress/kregress/results/compare"
)

// Verdict is one step's outcome.
type Verdict string

// Step verdicts.
const (
	Good      Verdict = "good"
	Bad       Verdict = "bad"
	Skip      Verdict = "skip"      // did not build, crashed, or same image as a skipped one
	Undecided Verdict = "undecided" // measured to the cap without a call: skipped too
)

// Samples are one look's figures of the metric: the step commit's and the
// endpoints' boots interleaved with it.
type Samples struct {
	Step, Good, Bad []float64
	// Crashed counts the step's cells whose kernel failed, GoodCrashed
	// and BadCrashed the endpoints' (crash mode).
	Crashed, GoodCrashed, BadCrashed int
	RunID                            int64
}

// BuildError says a commit's kernel does not build: a skip.
type BuildError struct {
	Commit string
	Err    error
}

func (e *BuildError) Error() string { return fmt.Sprintf("%.12s does not build: %v", e.Commit, e.Err) }
func (e *BuildError) Unwrap() error { return e.Err }

// Prober builds and measures kernels (the pipeline; fakes in tests).
type Prober interface {
	// Build builds commit's kernel and returns a hash of its bzImage; a
	// *BuildError when it does not build.
	Build(ctx context.Context, commit string) (image string, err error)
	// Measure boots step and both endpoints interleaved, reps times each.
	Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error)
}

// Options tune the search.
type Options struct {
	// Alpha is the false-call rate of one step, split over its looks and
	// its two tests (each test runs at Alpha / (2 * len(Reps))).
	Alpha float64
	// Reps are the repetitions of each look of a step: measure Reps[0]
	// boots, and while undecided, Reps[1] more, and so on.
	Reps []int
	// Crash bisects a crash instead of a metric: a point is bad when its
	// kernel fails (crashes, hangs, does not boot) in any of its boots,
	// good when every boot is ok.
	Crash bool
	// Report prints progress.
	Report func(format string, args ...any)
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if len(o.Reps) == 0 {
		o.Reps = []int{5, 5, 10}
	}
	if o.Report == nil {
		o.Report = func(string, ...any) {}
	}
	return o
}

// Step is one tested commit.
type Step struct {
	Commit  string    `json:"commit"`
	Index   int       `json:"index"`
	Verdict Verdict   `json:"verdict"`
	Why     string    `json:"why"`
	Median  float64   `json:"median,omitempty"`
	N       int       `json:"n,omitempty"`
	PGood   float64   `json:"p_good,omitempty"`
	PBad    float64   `json:"p_bad,omitempty"`
	RunIDs  []int64   `json:"run_ids,omitempty"`
	Image   string    `json:"image,omitempty"`
	Samples []float64 `json:"samples,omitempty"`
	// The endpoints' boots interleaved with this step's: every later
	// step compares with all of them.
	GoodSamples []float64 `json:"good_samples,omitempty"`
	BadSamples  []float64 `json:"bad_samples,omitempty"`
	// Crash mode: the failed boots of this point and of the endpoints.
	Crashes     int `json:"crashes,omitempty"`
	GoodCrashes int `json:"good_crashes,omitempty"`
	BadCrashes  int `json:"bad_crashes,omitempty"`
}

// Result is a finished (or stopped) bisect.
type Result struct {
	// Culprit is the first bad commit; empty when inconclusive or when
	// the endpoints do not differ.
	Culprit string `json:"culprit,omitempty"`
	// Range lists the commits one of which is the culprit when skips
	// leave no single answer.
	Range []string `json:"range,omitempty"`
	// Reproduced: the endpoints differ significantly.
	Reproduced bool    `json:"reproduced"`
	Endpoints  Step    `json:"endpoints"` // good's and bad's figures (Median: good, PBad: p)
	BadMedian  float64 `json:"bad_median"`
	Steps      []Step  `json:"steps"`
	// Confidence bounds the chance that no step was miscalled: 1 minus
	// the sum of the per-step false-call rates (Bonferroni).
	Confidence float64 `json:"confidence"`
	Measured   int     `json:"measured_steps"`
}

// ErrNotReproduced: good and bad do not differ in the metric.
var ErrNotReproduced = errors.New("the endpoints do not differ significantly: does not reproduce")

// Run bisects commits, whose first element is known good and last known
// bad (git rev-list --reverse good^..bad order). state, when not nil,
// holds steps of an interrupted bisect to resume from.
func Run(ctx context.Context, p Prober, commits []string, opts Options, resume []Step, save func(*Result)) (*Result, error) {
	opts = opts.withDefaults()
	if len(commits) < 2 {
		return nil, errors.New("bisect: need a good and a bad commit")
	}
	n := len(commits) - 1
	good, bad := commits[0], commits[n]
	res := &Result{Steps: append([]Step(nil), resume...)}
	if save == nil {
		save = func(*Result) {}
	}
	perTest := opts.Alpha / float64(2*len(opts.Reps))

	// Endpoints first: both measured, interleaved; stop when they do not
	// differ (Pinpoint's and syzkaller's rule).
	var goodS, badS []float64
	for _, s := range res.Steps {
		goodS, badS = append(goodS, s.GoodSamples...), append(badS, s.BadSamples...)
	}
	if len(goodS) == 0 {
		opts.Report("bisect: measuring the endpoints %.12s (good) and %.12s (bad), %d boots each", good, bad, opts.Reps[0])
		for _, c := range []string{good, bad} {
			if _, err := p.Build(ctx, c); err != nil {
				return nil, fmt.Errorf("bisect: endpoint %.12s: %w", c, err)
			}
		}
		// Adaptive like a step: more boots while the endpoints do not
		// differ yet, each look at alpha / looks.
		end := Step{Commit: good + ".." + bad, Index: -1, Verdict: "endpoints"}
		for _, reps := range opts.Reps {
			s, err := p.Measure(ctx, "", good, bad, reps)
			if err != nil {
				return nil, err
			}
			end.GoodSamples, end.BadSamples = append(end.GoodSamples, s.Good...), append(end.BadSamples, s.Bad...)
			end.GoodCrashes, end.BadCrashes = end.GoodCrashes+s.GoodCrashed, end.BadCrashes+s.BadCrashed
			end.RunIDs = append(end.RunIDs, s.RunID)
			if opts.Crash || mannWhitney(end.GoodSamples, end.BadSamples) < opts.Alpha/float64(len(opts.Reps)) {
				break
			}
		}
		goodS, badS = end.GoodSamples, end.BadSamples
		res.Steps = append(res.Steps, end)
		save(res)
	}
	if opts.Crash {
		// The endpoints' crash counts ride in Median (good) and
		// BadMedian (bad): good must never fail, bad must.
		gc, bc := 0, 0
		for _, s := range res.Steps {
			if s.Index == -1 {
				gc, bc = s.GoodCrashes, s.BadCrashes
			}
		}
		res.Endpoints = Step{Commit: good, Median: float64(gc), PBad: 0}
		res.BadMedian = float64(bc)
		if gc > 0 || bc == 0 {
			return res, ErrNotReproduced
		}
	} else {
		pEnd := mannWhitney(goodS, badS)
		res.Endpoints = Step{Commit: good, Median: median(goodS), N: len(goodS), PBad: pEnd}
		res.BadMedian = median(badS)
		if pEnd >= opts.Alpha/float64(len(opts.Reps)) {
			return res, ErrNotReproduced
		}
	}
	res.Reproduced = true

	// Known verdicts (from a resumed bisect, or found below).
	known := map[int]Verdict{0: Good, n: Bad}
	byImage := map[string]Verdict{}
	for _, s := range res.Steps {
		if s.Index >= 0 {
			known[s.Index] = s.Verdict
			if s.Image != "" {
				byImage[s.Image] = s.Verdict
			}
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		lo, hi := bounds(known, n)
		var open []int
		for i := lo + 1; i < hi; i++ {
			if _, tried := known[i]; !tried {
				open = append(open, i)
			}
		}
		if hi-lo == 1 {
			res.Culprit = commits[hi]
			break
		}
		if len(open) == 0 {
			res.Range = commits[lo+1 : hi+1]
			break
		}
		// The untried commit closest to the middle of the range.
		mid := (lo + hi) / 2
		sort.Slice(open, func(a, b int) bool { return abs(open[a]-mid) < abs(open[b]-mid) })
		i := open[0]
		c := commits[i]
		step := Step{Commit: c, Index: i}
		opts.Report("bisect: step %d of about %d: %.12s (%d commits left between good %.12s and bad %.12s)",
			res.Measured+1, int(math.Ceil(math.Log2(float64(n))))+1, c, hi-lo-1, commits[lo], commits[hi])
		image, err := p.Build(ctx, c)
		var be *BuildError
		switch {
		case errors.As(err, &be):
			step.Verdict, step.Why = Skip, "does not build: "+firstLine(be.Err.Error())
		case err != nil:
			return res, err
		default:
			step.Image = image
			if v, ok := byImage[image]; ok {
				step.Verdict, step.Why = v, "same bzImage as a commit already measured: its verdict, not booted"
				break
			}
			if err := measureStep(ctx, p, &step, good, bad, &goodS, &badS, perTest, opts); err != nil {
				return res, err
			}
			res.Measured++
			byImage[image] = step.Verdict
		}
		known[i] = step.Verdict
		res.Steps = append(res.Steps, step)
		opts.Report("bisect: %.12s is %s (%s)", c, step.Verdict, step.Why)
		save(res)
	}
	res.Confidence = 1 - float64(res.Measured)*opts.Alpha
	if res.Confidence < 0 {
		res.Confidence = 0
	}
	return res, nil
}

// measureStep measures one commit look by look until it is called or the
// looks run out.
func measureStep(ctx context.Context, p Prober, step *Step, good, bad string, goodS, badS *[]float64, perTest float64, opts Options) error {
	var samples []float64
	crashed := 0
	for look, reps := range opts.Reps {
		s, err := p.Measure(ctx, step.Commit, good, bad, reps)
		if err != nil {
			return err
		}
		step.RunIDs = append(step.RunIDs, s.RunID)
		samples = append(samples, s.Step...)
		step.GoodSamples, step.BadSamples = append(step.GoodSamples, s.Good...), append(step.BadSamples, s.Bad...)
		*goodS, *badS = append(*goodS, s.Good...), append(*badS, s.Bad...)
		crashed += s.Crashed
		if opts.Crash {
			step.Crashes, step.N = crashed, len(samples)+crashed
			if crashed > 0 {
				step.Verdict, step.Why = Bad, fmt.Sprintf("its kernel failed in %d of %d boots", crashed, reps)
			} else {
				step.Verdict, step.Why = Good, fmt.Sprintf("all %d boots ok", reps)
			}
			return nil
		}
		if crashed > 0 {
			step.Verdict, step.Why = Skip, fmt.Sprintf("its kernel failed in %d cell(s) while bisecting a metric", crashed)
			step.Samples = samples
			return nil
		}
		v, pg, pb := classify(samples, *goodS, *badS, perTest)
		step.Median, step.N, step.PGood, step.PBad, step.Samples = median(samples), len(samples), pg, pb, samples
		if v != Undecided {
			step.Verdict = v
			step.Why = fmt.Sprintf("median %.4g vs good %.4g (p=%.4f) and bad %.4g (p=%.4f), n=%d, look %d", step.Median, median(*goodS), pg, median(*badS), pb, len(samples), look+1)
			return nil
		}
		opts.Report("bisect: %.12s undecided after %d boots (p vs good %.3f, vs bad %.3f): measuring again", step.Commit, len(samples), pg, pb)
	}
	step.Verdict = Undecided
	step.Why = fmt.Sprintf("no call after %d boots (p vs good %.3f, vs bad %.3f; each test needs < %.4f): treated as a skip", len(samples), step.PGood, step.PBad, perTest)
	return nil
}

// classify calls a step like good when it differs significantly from bad
// and lies nearer good, like bad the other way round, else undecided.
func classify(step, good, bad []float64, alpha float64) (Verdict, float64, float64) {
	pg, pb := mannWhitney(step, good), mannWhitney(step, bad)
	m := median(step)
	dg, db := math.Abs(m-median(good)), math.Abs(m-median(bad))
	// Different from both endpoints: a commit between two changes, or
	// drift. Call it only when it is far nearer one of them.
	near := func(a, b float64) bool { return a < b && (pg >= alpha || pb >= alpha || a < b/3) }
	switch {
	case pb < alpha && near(dg, db):
		return Good, pg, pb
	case pg < alpha && near(db, dg):
		return Bad, pg, pb
	}
	return Undecided, pg, pb
}

// bounds returns the newest commit known good and the oldest known bad
// after it.
func bounds(known map[int]Verdict, n int) (lo, hi int) {
	lo, hi = 0, n
	for i, v := range known {
		if v == Good && i > lo {
			lo = i
		}
	}
	for i, v := range known {
		if v == Bad && i < hi && i > lo {
			hi = i
		}
	}
	return lo, hi
}

func mannWhitney(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	return compare.MannWhitneyP(a, b)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// StepOnce measures one commit against fresh boots of both endpoints and
// calls it, as a `git bisect run` step does: no state between steps, so
// the endpoints are measured anew each time.
func StepOnce(ctx context.Context, p Prober, commit, good, bad string, opts Options) (Step, error) {
	opts = opts.withDefaults()
	step := Step{Commit: commit}
	if _, err := p.Build(ctx, commit); err != nil {
		var be *BuildError
		if errors.As(err, &be) {
			step.Verdict, step.Why = Skip, "does not build: "+firstLine(be.Err.Error())
			return step, nil
		}
		return step, err
	}
	var goodS, badS []float64
	err := measureStep(ctx, p, &step, good, bad, &goodS, &badS, opts.Alpha/float64(2*len(opts.Reps)), opts)
	return step, err
}
