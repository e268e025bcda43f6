// Package bisect finds the commit (or the patch of a series) that changed
// a metric, with a statistical verdict. The endpoints' looks (with the
// first midpoint along) measure the endpoints' change; after them each
// look at a commit boots its kernel interleaved with one endpoint, good
// and bad in turn, and the commit is compared only with the endpoint
// boots of its own look (sprt.go), so a host that drifts between looks
// cannot move a call. The metric search (posterior.go) is a noisy binary
// search: every look of every commit informs the likelihood of every
// candidate culprit, the next look goes to the commit nearest even odds
// of being bad, and a culprit is named only when its likelihood beats
// every other candidate's by a margin that bounds the whole bisect's
// wrong-culprit rate - so commits far from the culprit are called on a
// look or two and only the culprit and its parent are measured to the
// strict level. A commit's verdict is Pinpoint's "different" (like bad)
// or "same" (like good, backed by power); a commit between the endpoints
// or measured to its cap without settling is a skip. Crash mode
// (crash.go) estimates the bad kernel's failure rate and boots a step
// until a bad kernel would have failed in it. A build failure or a crash
// is a skip, as git bisect run's 125; a commit with the same bzImage as
// another lies on the same side of the culprit. Models: syzkaller's
// pkg/bisect (skips, identical kernels, confidence over steps), Chromium
// Pinpoint (repeated samples, three outcomes, speculation), probabilistic
// bisection (Waeber-Frazier-Henderson; Karp-Kleinberg). The error rates
// are measured through this code by kregress-calibrate (-only bisect).
package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/internal/stats"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/results/verdict"
)

// Verdict is one step's outcome (verdict.Step), named here for the
// search.
type Verdict = verdict.Step

// Step verdicts.
const (
	Good      = verdict.Good
	Bad       = verdict.Bad
	Skip      = verdict.Skip      // did not build, crashed, or same image as a skipped one
	Undecided = verdict.Undecided // measured to the cap without a call: skipped too
)

// Samples are one look's figures of the metric: the step commit's and the
// endpoints' boots interleaved with it. A point not asked for (an empty
// name given to Measure) has no samples.
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
	// Measure boots the named points interleaved, reps times each; an
	// empty name is not booted (crash mode boots only what its decision
	// needs: the step alone, or one endpoint).
	Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error)
}

// goodLearner is a Prober that must see the good endpoint's runs before
// it measures a step without good (crash mode).
type goodLearner interface {
	LearnGood(ctx context.Context, runIDs []int64) error
}

// Options tune the search.
type Options struct {
	// Alpha bounds the chance that the bisect names a wrong culprit. In
	// metric mode the search names a commit only when its likelihood
	// beats every candidate d commits away by 2^(d+1) / (0.65 Alpha),
	// which for a known change and spread bounds the wrong-culprit rate
	// by 0.65 Alpha (posterior.go says why; the rest of Alpha pays for
	// both being estimated). In crash mode each step may miscall at most
	// Alpha / (ceil(log2 n) + 2) of the time, n the commits in the range
	// (Bonferroni over the steps). It is also the false "reproduces" rate
	// of the endpoints' test.
	Alpha float64
	// Reps are the boots of each look of the endpoints (and of a step
	// measured without them, StepOnce): Reps[0] of each point, and while
	// undecided, Reps[1] more, and so on; a step still undecided after
	// the last look is skipped. In crash mode they are the sizes of the
	// looks, the last repeated, until the decision is reached.
	Reps []int
	// StepReps are the looks of a commit once the endpoints' looks have
	// measured their change: each boots the commit and one endpoint,
	// StepReps[i] times each; a commit not settled after the last is a
	// skip.
	StepReps []int
	// Range is the number of commits the bisect searches (crash mode and
	// StepOnce split Alpha over ceil(log2 Range) + 2 steps); Run sets it,
	// StepOnce's caller should.
	Range int
	// Crash bisects a crash instead of a metric: a point is bad when its
	// kernel fails (crashes, hangs, does not boot) in any of its boots,
	// good when enough boots are ok that a kernel failing like the bad
	// endpoint would have failed in one of them but for the step's
	// share of Alpha.
	Crash bool
	// Speculate: how far ahead a metric bisect builds while a look
	// boots (speculate.go); the zero value builds nothing ahead. It
	// changes when kernels are built, never what is decided.
	Speculate Speculation
	// OutlierZ is the outlier screen's cut (sprt.go: a boot, or a look,
	// farther than this many robust standard deviations from its point
	// is set aside); 0 is the default, +Inf turns the screen off and
	// leaves the plain Gaussian likelihood. It has no user meaning: it
	// is for calibration's mutation rows, which must show that without
	// the screen a bisect on outlier boots misses its goal.
	OutlierZ float64
	// Report prints progress.
	Report progress.Reporter
	// pace times this Run's steps for the ETA of its progress lines.
	pace *pace
}

// DefaultReps are the endpoints' looks in metric mode: 5 boots of each
// endpoint (and of the first midpoint) per look, up to six looks (the calibration bench,
// kregress-calibrate -only bisect, shows the boots and error rates this
// gives).
var DefaultReps = []int{5, 5, 5, 5, 5, 5}

// DefaultStepReps are a commit's looks after the endpoints': 2 boots of
// the commit and 2 of one endpoint, up to 22 looks (88 boots at most).
// Small looks let the search stop a commit as soon as its evidence is
// enough: looks of 2 + 2 take fewer boots per bisect than 3 + 3 in the
// calibration bench (docs/design-notes.md).
var DefaultStepReps = []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if len(o.Reps) == 0 {
		o.Reps = DefaultReps
	}
	if len(o.StepReps) == 0 {
		o.StepReps = DefaultStepReps
	}
	if o.Range < 1 {
		o.Range = 16
	}
	if o.Report == nil {
		o.Report = progress.Discard
	}
	return o
}

// outlierZ is the outlier screen's cut in robust standard deviations
// (OutlierZ, or the default when it is not positive).
func (o Options) outlierZ() float64 {
	if o.OutlierZ > 0 {
		return o.OutlierZ
	}
	return outlierZ
}

// stepAlpha is one step's share of Alpha.
func (o Options) stepAlpha() float64 {
	return o.Alpha / (math.Ceil(math.Log2(float64(max(2, o.Range)))) + 2)
}

// endReps are the endpoints' looks: those of a step. (Fewer looks, each
// at a larger share of alpha, reproduce less often in the calibration
// bench; docs/design-notes.md has the figures.)
func (o Options) endReps() []int { return o.Reps }

// endLevel is the level of the endpoints' test at one look.
func (o Options) endLevel() float64 { return o.Alpha / float64(len(o.endReps())) }

// ErrBadOptions: alpha or the looks cannot give the stated error rate.
var ErrBadOptions = errors.New("bisect: bad options")

// CheckOptions refuses an alpha outside (0, 1) and looks too small for
// alpha: in metric mode, the endpoints' test and a step's test must each
// be able to reach their level by the last look, else the bisect could
// only ever say "does not reproduce" or "undecided". The error names the
// boots per look that would. Crash mode takes any looks.
func CheckOptions(alpha float64, reps []int, crash bool) error {
	if math.IsNaN(alpha) || alpha <= 0 || alpha >= 1 {
		return fmt.Errorf("%w: alpha %v is not in (0, 1)", ErrBadOptions, alpha)
	}
	if len(reps) == 0 {
		return fmt.Errorf("%w: no looks", ErrBadOptions)
	}
	for _, r := range reps {
		if r < 1 {
			return fmt.Errorf("%w: a look of %d boots", ErrBadOptions, r)
		}
	}
	if crash {
		return nil
	}
	o := Options{Alpha: alpha, Reps: reps}
	if reachable(o.endReps(), o.endLevel()) {
		return nil
	}
	// The smallest equal look that would do, with as many looks.
	need := 1
	eq := make([]int, len(o.endReps()))
	for ; need <= 100; need++ {
		for i := range eq {
			eq[i] = need
		}
		if reachable(eq, o.Alpha/float64(len(eq))) {
			break
		}
	}
	return fmt.Errorf("%w: with looks of %v boots the smallest p the endpoints' test can reach is %.3g, not below its level alpha / %d looks = %.4g: the bisect could only ever say \"does not reproduce\"; use at least %d boots per look (e.g. --looks %s)",
		ErrBadOptions, reps, 2*smallestP(looksOf(o.endReps())), len(o.endReps()), o.endLevel(), need, RepsString(eq))
}

// reachable: after all looks, the endpoints' two-sided stratified test
// can reach level.
func reachable(reps []int, level float64) bool {
	return 2*smallestP(looksOf(reps)) < level
}

func looksOf(reps []int) [][2]int {
	var l [][2]int
	for _, r := range reps {
		l = append(l, [2]int{r, r})
	}
	return l
}

// Look is one measurement of a step (or of the endpoints): the boots of
// each point, interleaved on the host at the same time. Comparisons are
// made within a look only.
type Look struct {
	Step        []float64 `json:"step,omitempty"`
	Good        []float64 `json:"good,omitempty"`
	Bad         []float64 `json:"bad,omitempty"`
	Crashed     int       `json:"crashed,omitempty"`
	GoodCrashed int       `json:"good_crashed,omitempty"`
	BadCrashed  int       `json:"bad_crashed,omitempty"`
	// Boots of each point asked for (crash mode counts boots, not
	// figures).
	StepBoots int `json:"step_boots,omitempty"`
	GoodBoots int `json:"good_boots,omitempty"`
	BadBoots  int `json:"bad_boots,omitempty"`
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
	// Looks hold every look's boots: the step's and the endpoints' of
	// the same look, compared only with each other.
	Looks []Look `json:"looks,omitempty"`
	// Test is the step's typed outcome at its last look.
	Test *Comparison `json:"test,omitempty"`
	// The endpoints' boots interleaved with this step's, flattened.
	GoodSamples []float64 `json:"good_samples,omitempty"`
	BadSamples  []float64 `json:"bad_samples,omitempty"`
	// Crash mode: the failed boots of this point and of the endpoints.
	Crashes     int `json:"crashes,omitempty"`
	GoodCrashes int `json:"good_crashes,omitempty"`
	BadCrashes  int `json:"bad_crashes,omitempty"`
	// Probe (the endpoints' step): the first midpoint, booted in the
	// endpoints' looks; its boots are Looks[].Step.
	Probe      string `json:"probe,omitempty"`
	ProbeIndex int    `json:"probe_index,omitempty"`
	// Miss (crash mode, a step called good): P(no failure in its boots |
	// it is as bad as the bad endpoint), the error this call risks.
	Miss float64 `json:"miss,omitempty"`
}

// looks returns the step's looks; a step stored before looks were kept
// has its boots as one look.
func (s *Step) looks() []Look {
	if len(s.Looks) > 0 || (len(s.Samples) == 0 && len(s.GoodSamples) == 0) {
		return s.Looks
	}
	return []Look{{Step: s.Samples, Good: s.GoodSamples, Bad: s.BadSamples}}
}

func (s *Step) add(smp *Samples, l Look) {
	l.Step, l.Good, l.Bad = smp.Step, smp.Good, smp.Bad
	l.Crashed, l.GoodCrashed, l.BadCrashed = smp.Crashed, smp.GoodCrashed, smp.BadCrashed
	s.Looks = append(s.Looks, l)
	s.RunIDs = append(s.RunIDs, smp.RunID)
	s.Samples = append(s.Samples, smp.Step...)
	s.GoodSamples, s.BadSamples = append(s.GoodSamples, smp.Good...), append(s.BadSamples, smp.Bad...)
	s.Crashes += smp.Crashed
	s.GoodCrashes, s.BadCrashes = s.GoodCrashes+smp.GoodCrashed, s.BadCrashes+smp.BadCrashed
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
	Reproduced bool `json:"reproduced"`
	// Endpoints: good's and bad's figures: in metric mode Median is
	// good's, BadMedian bad's and PBad the p-value; in crash mode
	// GoodCrashes and BadCrashes count their failed boots.
	Endpoints Step    `json:"endpoints"`
	BadMedian float64 `json:"bad_median"`
	Steps     []Step  `json:"steps"`
	// Confidence is the chance that the culprit is right, and
	// ConfidenceWhy says how it was reached: in metric mode 1 minus Alpha
	// (a lower bound: the stopping rule's, 0.65 Alpha for a known change
	// and spread, the rest for their estimation); in crash mode the
	// posterior chance of the culprit given every boot (crashPosterior).
	Confidence    float64 `json:"confidence"`
	ConfidenceWhy string  `json:"confidence_why,omitempty"`
	Measured      int     `json:"measured_steps"`
	// CrashRate: crash mode, the bad endpoint's failures and boots.
	CrashRate *Rate `json:"crash_rate,omitempty"`
	// Confirmation: the culprit reverted on the bad endpoint, measured
	// (confirm.go); nil until checked.
	Confirmation *Confirmation `json:"confirmation,omitempty"`
	// Merge: the culprit the first-parent search named was a merge, and
	// the search descended into its merged branch (merge.go); nil when
	// it was not.
	Merge *Merge `json:"merge,omitempty"`
	// Metrics: other metrics of the same boots judged at the culprit
	// (CheckMetrics); nil when none was asked for.
	Metrics []MetricCheck `json:"metrics,omitempty"`
	// MoreChanges: the data show more than one change in the range
	// (changes.go); nil when they do not.
	MoreChanges *MoreChanges `json:"more_changes,omitempty"`
	// Speculation: what the speculative builds of the last Run did (a
	// resumed bisect counts from its resume); nil when none ran.
	Speculation *SpeculationStats `json:"speculation,omitempty"`
}

// ErrNotReproduced: good and bad do not differ in the metric.
var ErrNotReproduced = errors.New("the endpoints do not differ significantly: does not reproduce")

// Run bisects commits, whose first element is known good and last known
// bad (git rev-list --reverse good^..bad order). state, when not nil,
// holds steps of an interrupted bisect to resume from.
func Run(ctx context.Context, p Prober, commits []string, opts Options, resume []Step, save func(*Result)) (*Result, error) {
	opts = opts.withDefaults()
	if err := CheckOptions(opts.Alpha, opts.Reps, opts.Crash); err != nil {
		return nil, err
	}
	if len(commits) < 2 {
		return nil, errors.New("bisect: need a good and a bad commit")
	}
	if opts.Speculate.Levels < 0 || opts.Speculate.Levels > MaxSpeculation {
		return nil, fmt.Errorf("%w: speculation %d levels, want 0..%d", ErrBadOptions, opts.Speculate.Levels, MaxSpeculation)
	}
	var spec *speculator
	switch {
	case opts.Crash && opts.Speculate.Levels > 0:
		opts.Report("bisect: no speculative builds: a crash bisect halves its range step by step and is not made to speculate")
	case !opts.Crash:
		if opts.Speculate.Why != "" {
			opts.Report("bisect: %s", opts.Speculate.Why)
		}
		if opts.Speculate.Levels > 0 {
			spec = newSpeculator(ctx, p, opts.Speculate, opts.Report)
			p = spec
		}
	}
	res, err := run(ctx, p, spec, commits, opts, resume, save)
	if spec != nil {
		st := spec.close(err != nil && !errors.Is(err, ErrNotReproduced) || ctx.Err() != nil)
		opts.Report("bisect: speculative builds: %s", st)
		if res != nil {
			res.Speculation = st
		}
	}
	return res, err
}

// run is Run once the options are checked; p is the speculator when spec
// is not nil.
func run(ctx context.Context, p Prober, spec *speculator, commits []string, opts Options, resume []Step, save func(*Result)) (*Result, error) {
	opts.Range = len(commits) - 1
	opts.pace = &pace{}
	res := &Result{Steps: append([]Step(nil), resume...)}
	if save == nil {
		save = func(*Result) {}
	}
	end, err := endpoints(ctx, p, spec, commits, opts, res, save)
	if err != nil {
		return nil, err
	}
	if err := reproduced(ctx, p, commits[0], opts, res, end); err != nil {
		return res, err
	}
	res.Reproduced = true
	for _, s := range res.Steps {
		if s.Index >= 0 && (s.Looks != nil || s.N > 0) {
			res.Measured++
		}
	}
	if !opts.Crash {
		if err := searchMetric(ctx, p, spec, commits, opts, res, end, save); err != nil {
			return res, err
		}
		return res, nil
	}
	if err := searchCrash(ctx, p, commits, opts, res, save); err != nil {
		return res, err
	}
	rate := crashRate(res.Steps)
	res.CrashRate = &rate
	res.Confidence, res.ConfidenceWhy = confidence(res, opts, commits)
	return res, nil
}

// endpoints returns the step of the endpoints: a resumed bisect's, or
// measured now. Endpoints first: both measured, interleaved; the search
// stops when they do not differ (Pinpoint's and syzkaller's rule).
func endpoints(ctx context.Context, p Prober, spec *speculator, commits []string, opts Options, res *Result, save func(*Result)) (*Step, error) {
	var end *Step
	for i := range res.Steps {
		if res.Steps[i].Index == -1 {
			end = &res.Steps[i]
		}
	}
	if end != nil {
		return end, nil
	}
	n := len(commits) - 1
	good, bad := commits[0], commits[n]
	opts.phase("endpoints", fmt.Sprintf("bisect endpoints %.12s..%.12s", good, bad), 0, "bisect: measuring the endpoints %.12s (good) and %.12s (bad)", good, bad)
	for _, c := range []string{good, bad} {
		if _, err := p.Build(ctx, c); err != nil {
			return nil, fmt.Errorf("bisect: endpoint %.12s: %w", c, err)
		}
	}
	e := Step{Commit: good + ".." + bad, Index: -1, Verdict: "endpoints"}
	var err error
	if opts.Crash {
		err = measureCrashEndpoints(ctx, p, &e, good, bad, opts)
	} else {
		if err := rideAlong(ctx, p, spec, commits, &e); err != nil {
			return nil, err
		}
		err = measureEndpoints(ctx, p, &e, good, bad, opts)
	}
	if err != nil {
		return nil, err
	}
	res.Steps = append([]Step{e}, res.Steps...)
	save(res)
	return &res.Steps[0], nil
}

// rideAlong builds the first midpoint to ride along in the endpoints'
// looks (Pinpoint speculates too): its boots are compared with the same
// looks' endpoint boots, so once the endpoints reproduce, the first step
// already has looks that cost no endpoint boots of their own. A midpoint
// that does not build just does not ride along.
func rideAlong(ctx context.Context, p Prober, spec *speculator, commits []string, e *Step) error {
	n := len(commits) - 1
	if n < 2 {
		return nil
	}
	img, err := p.Build(ctx, commits[n/2])
	if err != nil {
		if !errors.As(err, new(*BuildError)) {
			return err
		}
		return nil
	}
	e.Probe, e.ProbeIndex, e.Image = commits[n/2], n/2, img
	// Before any look, every position is as likely.
	spec.planFrom(commits, positions(n, nil, nil, nil), nil, n/2, func(j int) bool { return j == 0 || j == n || j == n/2 })
	return nil
}

// reproduced fills res's endpoints from end and says (ErrNotReproduced)
// when they do not show the regression: good must never fail and bad
// must, or bad's metric must differ from good's.
func reproduced(ctx context.Context, p Prober, good string, opts Options, res *Result, end *Step) error {
	if !opts.Crash && len(end.Looks) == 0 && len(end.GoodSamples) > 0 {
		// Stored before looks were kept: its boots as one look, its test
		// run again (it was not stored).
		end.Looks = end.looks()
		end.PBad = math.Min(1, 2*math.Min(stratifiedP([]Stratum{{X: end.BadSamples, Y: end.GoodSamples}}, true), stratifiedP([]Stratum{{X: end.BadSamples, Y: end.GoodSamples}}, false)))
	}
	if !opts.Crash {
		res.Endpoints = Step{Commit: good, Median: stats.Median(end.GoodSamples), N: len(end.GoodSamples), PBad: end.PBad}
		res.BadMedian = stats.Median(end.BadSamples)
		if end.PBad >= opts.endLevel() {
			return ErrNotReproduced
		}
		return nil
	}
	res.Endpoints = Step{Commit: good, GoodCrashes: end.GoodCrashes, BadCrashes: end.BadCrashes, N: bootsOf(end, false)}
	rate := crashRate(res.Steps)
	res.CrashRate = &rate
	if end.GoodCrashes > 0 || end.BadCrashes == 0 {
		return ErrNotReproduced
	}
	// Steps boot without good: the prober learns good's known
	// selftest failures from the endpoints' runs (also on resume).
	if gl, ok := p.(goodLearner); ok {
		if err := gl.LearnGood(ctx, end.RunIDs); err != nil {
			return err
		}
	}
	return nil
}

// searchCrash is the crash mode's search: a failing step is bad for
// certain, so each step is called once and the search halves the range.
// Known verdicts come from a resumed bisect, or are found here.
func searchCrash(ctx context.Context, p Prober, commits []string, opts Options, res *Result, save func(*Result)) error {
	n := len(commits) - 1
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
			return err
		}
		lo, hi := bounds(known, n)
		i, untried := untriedNearMiddle(known, lo, hi)
		if hi-lo == 1 {
			res.Culprit = commits[hi]
			return nil
		}
		if !untried {
			res.Range = commits[lo+1 : hi+1]
			return nil
		}
		c := commits[i]
		k, about := res.Measured+1, aboutSteps(n)
		opts.stepPhase(k, about, c, "bisect: step %d of about %d: %.12s (%d commits left between good %.12s and bad %.12s)",
			k, about, c, hi-lo-1, commits[lo], commits[hi])
		step, err := crashStep(ctx, p, c, i, opts, res, byImage)
		if err != nil {
			return err
		}
		known[i] = step.Verdict
		res.Steps = append(res.Steps, step)
		opts.Report("bisect: %.12s is %s (%s)", c, step.Verdict, step.Why)
		save(res)
	}
}

// untriedNearMiddle is the untried commit between lo and hi closest to
// the middle of the range; false when every one was tried.
func untriedNearMiddle(known map[int]Verdict, lo, hi int) (int, bool) {
	var open []int
	for i := lo + 1; i < hi; i++ {
		if _, tried := known[i]; !tried {
			open = append(open, i)
		}
	}
	if len(open) == 0 {
		return 0, false
	}
	mid := (lo + hi) / 2
	sort.Slice(open, func(a, b int) bool { return abs(open[a]-mid) < abs(open[b]-mid) })
	return open[0], true
}

// crashStep builds commit c (index i) and calls it: a skip when it does
// not build, the verdict of an image already measured (byImage, which it
// extends), or measured now (counted in res.Measured).
func crashStep(ctx context.Context, p Prober, c string, i int, opts Options, res *Result, byImage map[string]Verdict) (Step, error) {
	step := Step{Commit: c, Index: i}
	image, err := p.Build(ctx, c)
	var be *BuildError
	switch {
	case errors.As(err, &be):
		step.Verdict, step.Why = Skip, "does not build: "+lines.First(be.Err.Error())
	case err != nil:
		return step, err
	default:
		step.Image = image
		if v, ok := byImage[image]; ok {
			step.Verdict, step.Why = v, "same bzImage as a commit already measured: its verdict, not booted"
			break
		}
		if err := measureCrashStep(ctx, p, &step, crashRate(res.Steps), opts); err != nil {
			return step, err
		}
		res.Measured++
		byImage[image] = step.Verdict
	}
	return step, nil
}

// confidence is what the search controlled: the chance that none of its
// calls was wrong is at least this (Bonferroni over the steps).
func confidence(res *Result, opts Options, commits []string) (float64, string) {
	if opts.Crash {
		// The steps' calls are made at the rate known when each was
		// made; the confidence printed reads every boot of the bisect
		// at once (crashPosterior): a sum of the good calls' misses at
		// the rates of their time ran above the share of right culprits
		// when the bad endpoint's first failures came early by chance.
		post := crashPosterior(res, commits)
		r := res.CrashRate
		return post, fmt.Sprintf("the posterior chance that the named commit is the first to fail, given every boot of the bisect (%d step(s) called good; the bad kernels' failure rate %d of %d boots failed, with its uncertainty: Jeffreys' prior; every position of the culprit equally likely before the bisect; the good endpoint never fails)", countGood(res.Steps), r.Failed, r.Boots)
	}
	return math.Max(0, 1-float64(res.Measured)*opts.stepAlpha()), fmt.Sprintf("1 - the sum of the %d measured steps' false-call rates (%.3g each: alpha %.3g over %.0f steps)", res.Measured, opts.stepAlpha(), opts.Alpha, opts.Alpha/opts.stepAlpha())
}

// measureEndpoints measures good and bad interleaved, look by look, until
// they differ (two-sided stratified test at alpha / looks) or the looks
// run out.
func measureEndpoints(ctx context.Context, p Prober, e *Step, good, bad string, opts Options) error {
	for _, reps := range opts.endReps() {
		probe, l := "", Look{GoodBoots: reps, BadBoots: reps}
		if e.Probe != "" && e.Crashes == 0 {
			probe, l.StepBoots = e.Probe, reps
		}
		s, err := p.Measure(ctx, probe, good, bad, reps)
		if err != nil {
			return err
		}
		e.add(s, l)
		var strata []Stratum
		for _, l := range e.Looks {
			strata = append(strata, Stratum{X: l.Bad, Y: l.Good})
		}
		e.PBad = math.Min(1, 2*math.Min(stratifiedP(strata, true), stratifiedP(strata, false)))
		e.N = len(e.BadSamples)
		if e.PBad < opts.endLevel() {
			e.Why = fmt.Sprintf("differ: p=%.4f (stratified by look, two-sided) after %d look(s)", e.PBad, len(e.Looks))
			return nil
		}
	}
	e.Why = fmt.Sprintf("do not differ: p=%.4f after %d look(s), level %.4g each", e.PBad, len(e.Looks), opts.endLevel())
	return nil
}

// priorLooks gathers every look of the bisect so far (but except's): the
// endpoints' change is estimated from those that booted both endpoints,
// the within-look spread from all of them (the steps' looks, each with
// one endpoint, keep adding to its degrees of freedom).
//
// The first midpoint's first looks are the endpoints' looks, kept in both
// steps: they are taken once (counted twice they halved the change's
// stated error and doubled the spread's degrees of freedom). Without the
// endpoints' step (except), the midpoint keeps them.
//
// A step already called carries the change too, compared within its own
// looks: a step called bad booted with good is one more "bad minus good"
// in that look, one called good booted with bad likewise, and the first
// midpoint's boots in the endpoints' looks join the endpoint it was
// called like. So the change is estimated from every look, not only from
// the endpoints' - whose looks stop at the first that reproduces and so
// overestimate it (the winner's curse), which leans a bad step toward
// "good". A wrong call (at most the step's share) puts a look at no
// change into the estimate; the calibration bench measures the error
// rates this gives.
func priorLooks(steps []Step, except string) []Look {
	probe, shared := "", []Look(nil)
	for i := range steps {
		if steps[i].Index == -1 && steps[i].Probe != "" && steps[i].Commit != except {
			probe = steps[i].Probe
			for _, l := range steps[i].looks() {
				if len(l.Step) > 0 || l.Crashed > 0 {
					shared = append(shared, l)
				}
			}
		}
	}
	var ls []Look
	for i := range steps {
		s := &steps[i]
		if except != "" && s.Commit == except {
			continue
		}
		v := s.Verdict
		if s.Index == -1 {
			v = verdictOf(steps, s.Probe)
		}
		for k, l := range s.looks() {
			if s.Index >= 0 && s.Commit == probe && k < len(shared) && sameLook(l, shared[k]) {
				continue // the endpoints' look, taken with the endpoints
			}
			if len(l.Good)+len(l.Bad) == 0 {
				continue
			}
			if l.Crashed > 0 {
				// The step's kernel failed: its figures say nothing,
				// the endpoints' beside it still do.
				l = Look{Good: l.Good, Bad: l.Bad}
			}
			if len(l.Step) > 0 {
				switch {
				case v == Bad && len(l.Good) > 0:
					l = Look{Good: l.Good, Bad: join(l.Bad, l.Step)}
				case v == Good && len(l.Bad) > 0:
					l = Look{Good: join(l.Good, l.Step), Bad: l.Bad}
				}
			}
			ls = append(ls, l)
		}
	}
	return ls
}

// verdictOf is the verdict of the measured step at commit c ("" if none).
func verdictOf(steps []Step, c string) Verdict {
	for _, s := range steps {
		if s.Index >= 0 && s.Commit == c {
			return s.Verdict
		}
	}
	return ""
}

// sameLook: the same boots (the midpoint's copy of an endpoints' look).
func sameLook(a, b Look) bool {
	eq := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return eq(a.Step, b.Step) && eq(a.Good, b.Good) && eq(a.Bad, b.Bad) && a.Crashed == b.Crashed
}

func join(a, b []float64) []float64 { return append(append([]float64(nil), a...), b...) }

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

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
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
			step.Verdict, step.Why = Skip, "does not build: "+lines.First(be.Err.Error())
			return step, nil
		}
		return step, err
	}
	if err := CheckOptions(opts.Alpha, opts.Reps, false); err != nil {
		return step, err
	}
	// The endpoints' change is read from the step's own looks (each boots
	// both endpoints).
	err := measureStep(ctx, p, &step, good, bad, nil, opts)
	return step, err
}
