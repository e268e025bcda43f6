package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/internal/stats"
)

// The metric search is a noisy binary search over the culprit's position
// (probabilistic bisection, Waeber-Frazier-Henderson; Karp-Kleinberg):
// instead of calling each step on its own at a share of alpha and never
// revisiting it, the search keeps the likelihood of every candidate
// culprit and lets every look of every commit inform all of them.
//
// A commit i's looks give a log likelihood ratio L_i, "like bad" over
// "like good" (sprt's, compared within looks). The culprit is at k when
// commits k.. are bad and ..k-1 good, so the log likelihood of k is
//
//	l(k) = sum of L_i over the measured commits i >= k.
//
// Each look boots the commit whose chance of being bad is nearest 1/2
// under a uniform prior over the positions (the posterior median), so a
// look far from the culprit steers the search after a look or two, and
// a commit can be measured again later when the evidence around it
// calls for it. The search names position k when, for every other
// position j, d positions away,
//
//	l(k) - l(j) >= log(2^(d+1) / a),    a = Alpha * estMargin.
//
// Why that bounds the whole bisect's wrong-culprit rate: with the true
// culprit at k*, the likelihood ratio of any k over k* is, look by look,
// a non-negative martingale under k* (whatever commit each look chose),
// so by Ville's inequality it ever reaches 2^(d+1)/a with probability at
// most a/2^(d+1). A wrong k is named only if its ratio did; summed over
// the positions on both sides of k* (d = 1, 2, ...) that is at most a.
// The split is over positions, not steps: the two neighbours of the
// culprit carry a/4 each, and far positions, whose ratios multiply the
// evidence of several commits, need little more. So steps far from the
// culprit are called on a look or two, and only the culprit and its
// parent are measured to the strict level, rather than every step at
// alpha / (log2 n + 2) as a search of independent steps would.
//
// The bound holds for a known change and spread; both are estimated
// (from every look of the bisect, priorLooks), which makes the ratios
// only approximately martingales: estMargin pays for that, and the
// calibration bench (kregress-calibrate -only bisect) measures the rates
// this gives through this code.
//
// Skips (no build, a crash, "between", a commit measured to its cap
// without settling) carry no evidence: positions on either side of them
// cannot be told apart and are merged into one candidate block, and a
// block of several positions ends the bisect as a range. Commits with
// the same bzImage as another are on the same side of the culprit: the
// positions between them are impossible.

// estMargin is the share of Alpha the stopping rule spends; the rest
// pays for the change and spread being estimated. The calibration
// bench's bisect rows (docs/calibration.md) meet their goals at it.
const estMargin = 0.65

// searchAlpha is the stopping rule's wrong-culprit bound a.
func (o Options) searchAlpha() float64 { return o.Alpha * estMargin }

// nameThreshold is the log likelihood ratio a named position needs over
// one d blocks away.
func (o Options) nameThreshold(d int) float64 {
	return float64(d+1)*math.Ln2 - math.Log(o.searchAlpha())
}

// candidates is the search's view of the positions 1..n (position k: the
// culprit is commit k).
type candidates struct {
	// blocks are runs of positions that no measurable commit separates,
	// in order.
	blocks [][]int
	// ll is each block's log likelihood (every position of a block has
	// the same).
	ll []float64
}

// positions builds the candidate blocks. llr holds the measured commits'
// evidence; dead are the commits that can give none (skipped, or the
// same image as another commit); samePairs are commits with one image.
func positions(n int, llr map[int]float64, dead map[int]bool, samePairs [][2]int) candidates {
	possible := make([]bool, n+1)
	for k := 1; k <= n; k++ {
		possible[k] = true
	}
	for _, p := range samePairs {
		for k := p[0] + 1; k <= p[1]; k++ {
			possible[k] = false
		}
	}
	var c candidates
	prev := -1
	for k := 1; k <= n; k++ {
		if !possible[k] {
			continue
		}
		// k joins the previous block unless a commit in [prev, k-1] can
		// tell them apart.
		join := prev >= 0
		for i := prev; join && i < k; i++ {
			if !dead[i] {
				join = false
			}
		}
		l := 0.0
		for i, v := range llr {
			if i >= k {
				l += v
			}
		}
		if join {
			c.blocks[len(c.blocks)-1] = append(c.blocks[len(c.blocks)-1], k)
		} else {
			c.blocks = append(c.blocks, []int{k})
			c.ll = append(c.ll, l)
		}
		prev = k
	}
	return c
}

// best is the most likely block, and whether the stopping rule names it.
func (c candidates) best(o Options) (int, bool) {
	b := 0
	for i := range c.ll {
		if c.ll[i] > c.ll[b] {
			b = i
		}
	}
	for j := range c.ll {
		if j != b && c.ll[b]-c.ll[j] < o.nameThreshold(abs(j-b)) {
			return b, false
		}
	}
	return b, true
}

// pBad is the posterior chance that commit i is bad (the culprit at or
// before it), under a uniform prior over the possible positions.
func (c candidates) pBad(i int) float64 {
	return c.posterior(func(k, _ int) bool { return k <= i })
}

// posterior is the chance, under a uniform prior over the possible
// positions, that the culprit is at a position k (of block b) for which
// in(k, b) holds.
func (c candidates) posterior(in func(k, b int) bool) float64 {
	top := math.Inf(-1)
	for _, l := range c.ll {
		top = math.Max(top, l)
	}
	num, den := 0.0, 0.0
	for b, ks := range c.blocks {
		for _, k := range ks {
			w := math.Exp(c.ll[b] - top)
			den += w
			if in(k, b) {
				num += w
			}
		}
	}
	return num / den
}

// blockOf is the block holding position k; -1 when k is impossible.
func (c candidates) blockOf(k int) int {
	for b, ks := range c.blocks {
		if slices.Contains(ks, k) {
			return b
		}
	}
	return -1
}

// pBlock is the posterior chance of block b (every position in it).
func (c candidates) pBlock(b int) float64 {
	return c.posterior(func(_, j int) bool { return j == b })
}

// ruledOut is a block more likely than block b by the naming threshold
// for their distance (the rule that names a block, turned round: b could
// not be named, and with b the true position this happens at most about
// searchAlpha of the time); -1 when none is.
func (c candidates) ruledOut(b int, o Options) int {
	for j := range c.ll {
		if j != b && c.ll[j]-c.ll[b] >= o.nameThreshold(abs(j-b)) {
			return j
		}
	}
	return -1
}

// next is the search's choice (speculation asks it too, on a
// conditioned posterior) of the commit to look at: the measurable
// commit whose chance of being bad is nearest 1/2 (the first of equals),
// and that distance; -1 when no commit is measurable.
func (c candidates) next(dead map[int]bool, n int) (int, float64) {
	next, gap := -1, 2.0
	for i := 1; i < n; i++ {
		if dead[i] {
			continue
		}
		if g := math.Abs(c.pBad(i) - 0.5); g < gap-1e-12 {
			next, gap = i, g
		}
	}
	return next, gap
}

// searchMetric runs the metric search after the endpoints reproduced
// (end is their step, res.Steps[0] or a resumed one).
// spec, when not nil, is p, told before each look which commits the
// search would look at next under either outcome.
func searchMetric(ctx context.Context, p Prober, spec *speculator, commits []string, opts Options, res *Result, end *Step, save func(*Result)) error {
	n := len(commits) - 1
	good, bad := commits[0], commits[n]
	at := map[int]int{} // commit index -> its step in res.Steps
	for k, s := range res.Steps {
		if s.Index >= 0 {
			at[s.Index] = k
		}
	}
	// The first midpoint's first looks are the endpoints' looks.
	if _, ok := at[end.ProbeIndex]; !ok && end.Probe != "" {
		step := Step{Commit: end.Probe, Index: end.ProbeIndex, Image: end.Image}
		for _, l := range end.Looks {
			if len(l.Step) > 0 || l.Crashed > 0 {
				step.add(&Samples{Step: l.Step, Good: l.Good, Bad: l.Bad, Crashed: l.Crashed}, l)
			}
		}
		step.RunIDs = append([]int64(nil), end.RunIDs[:len(step.Looks)]...)
		step.Median, step.N = stats.Median(step.Samples), len(step.Samples)
		if skip, why := failedSkip(step.Crashes); skip {
			step.Verdict, step.Why = Skip, why
		}
		at[step.Index] = len(res.Steps)
		res.Steps = append(res.Steps, step)
		res.Measured++
		save(res)
	}
	e := opts.stepAlpha() * estMargin // the "between" test's level
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		tests, dead, same := evidence(res.Steps, end, e, opts.outlierZ())
		llr := map[int]float64{}
		for i, t := range tests {
			llr[i] = t.LLR
		}
		c := positions(n, llr, dead, same)
		b, named := c.best(opts)
		if named {
			if j := unsettled(tests, c.blocks[b]); j >= 0 {
				// The culprit or its parent could still lie between
				// the endpoints: one more look before naming.
				spec.planFrom(commits, c, dead, j, func(j int) bool { _, ok := at[j]; return ok })
				if err := lookAt(ctx, p, res, at, commits, j, good, bad, end, c.pBad(j), opts, e); err != nil {
					return err
				}
				save(res)
				continue
			}
			finish(res, commits, c.blocks[b], tests, opts)
			return nil
		}
		// The measurable commit nearest to even odds of being bad.
		next, _ := c.next(dead, n)
		if next < 0 {
			// Nothing measurable separates the best block from another:
			// can only happen when every commit is dead, and then there
			// is a single block, named above.
			return errors.New("bisect: no commit left to measure and no culprit named")
		}
		spec.planFrom(commits, c, dead, next, func(j int) bool { _, ok := at[j]; return ok })
		if err := lookAt(ctx, p, res, at, commits, next, good, bad, end, c.pBad(next), opts, e); err != nil {
			return err
		}
		save(res)
	}
}

// evidence reads every measured commit's test (its log likelihood ratio)
// from its looks, and which commits can give none.
func evidence(steps []Step, end *Step, e, z float64) (tests map[int]Comparison, dead map[int]bool, same [][2]int) {
	tests, dead = map[int]Comparison{}, map[int]bool{}
	images := map[string]int{}
	for k := range steps {
		s := &steps[k]
		if s.Index < 0 {
			continue
		}
		if s.Image != "" {
			if j, ok := images[s.Image]; ok && j != s.Index {
				same = append(same, [2]int{min(j, s.Index), max(j, s.Index)})
				dead[s.Index] = true
				continue
			}
			images[s.Image] = s.Index
		}
		if s.Verdict == Skip || s.Verdict == Undecided || len(s.Looks) == 0 {
			dead[s.Index] = true
			continue
		}
		tests[s.Index] = sprt(priorFor(steps, k, end), s.Looks, e, z)
	}
	return tests, dead, same
}

// priorFor is the bisect's looks other than step k's own (the first
// midpoint's own looks hold the endpoints', so its prior leaves them
// out).
func priorFor(steps []Step, k int, end *Step) []Look {
	others := make([]Step, 0, len(steps)-1)
	others = append(others, steps[:k]...)
	others = append(others, steps[k+1:]...)
	except := ""
	if steps[k].Commit == end.Probe && steps[k].Image == end.Image {
		except = end.Commit
	}
	return priorLooks(others, except)
}

// lookAt takes one more look at commit i (building it first if new): the
// step and one endpoint, good and bad in turn. pBad is the commit's
// chance of being bad before the look, reported and used as its
// provisional verdict in the change's estimate.
func lookAt(ctx context.Context, p Prober, res *Result, at map[int]int, commits []string, i int, good, bad string, end *Step, pBad float64, opts Options, e float64) error {
	k, ok := at[i]
	if !ok {
		step := Step{Commit: commits[i], Index: i}
		about := aboutSteps(opts.Range)
		opts.stepPhase(res.Measured+1, about, commits[i], "bisect: step %d of about %d: building %.12s", res.Measured+1, about, commits[i])
		image, err := p.Build(ctx, commits[i])
		var be *BuildError
		switch {
		case errors.As(err, &be):
			step.Verdict, step.Why = Skip, "does not build: "+lines.First(be.Err.Error())
		case err != nil:
			return err
		default:
			step.Image = image
			for _, s := range res.Steps {
				if s.Index >= 0 && s.Image == image {
					step.Verdict, step.Why = s.Verdict, fmt.Sprintf("same bzImage as %.12s: on the same side of the culprit, not booted", s.Commit)
					if s.Verdict != Skip && s.Verdict != Undecided {
						step.Verdict = ""
					}
				}
			}
		}
		at[i] = len(res.Steps)
		res.Steps = append(res.Steps, step)
		if step.Verdict != "" || step.Why != "" {
			opts.Report("bisect: %.12s: %s", step.Commit, step.Why)
			return nil
		}
		k = at[i]
		res.Measured++
	}
	step := &res.Steps[k]
	own := len(step.Looks)
	if step.Commit == end.Probe && step.Image == end.Image {
		own -= sharedLooks(end)
	}
	if own >= len(opts.StepReps) {
		step.Verdict = Undecided
		step.Why = fmt.Sprintf("no call after %d boots, treated as a skip: %s", step.N, step.Test)
		opts.Report("bisect: %.12s: %s", step.Commit, step.Why)
		return nil
	}
	reps := opts.StepReps[own]
	// Once the change is known: one endpoint per look, in turn.
	prior := priorFor(res.Steps, k, end)
	g, b, l := stepLook(step, good, bad, reps, hasBoth(prior) || hasBoth(step.Looks))
	with := "both endpoints"
	if g == "" {
		with = "bad"
	} else if b == "" {
		with = "good"
	}
	opts.stepPhase(res.Measured, aboutSteps(opts.Range), step.Commit, "bisect: %.12s, bad with chance %.3f: a look of %d boots beside %s", step.Commit, pBad, reps, with)
	if err := step.measureLook(ctx, p, g, b, l); err != nil {
		return err
	}
	c, ended := step.judge(priorFor(res.Steps, k, end), e, opts.outlierZ())
	if ended {
		return nil
	}
	if c.Outcome == Between {
		step.Verdict, step.Why = Undecided, "between the endpoints, treated as a skip: "+c.String()
		return nil
	}
	// A provisional verdict once the commit is nearly settled: it lets
	// its looks' contrasts join the change's estimate (priorLooks).
	step.Verdict = ""
	switch a := opts.searchAlpha(); {
	case pBad >= 1-a && c.LLR > 0:
		step.Verdict = Bad
	case pBad <= a && c.LLR < 0:
		step.Verdict = Good
	}
	return nil
}

// sharedLooks counts the endpoints' looks the first midpoint booted in.
func sharedLooks(end *Step) int {
	n := 0
	for _, l := range end.Looks {
		if len(l.Step) > 0 || l.Crashed > 0 {
			n++
		}
	}
	return n
}

// finish names the block's culprit (or range) and gives every commit the
// verdict the named culprit implies, with its own evidence beside it.
func finish(res *Result, commits []string, block []int, tests map[int]Comparison, opts Options) {
	lo, hi := block[0], block[len(block)-1]
	if lo == hi {
		res.Culprit = commits[lo]
	} else {
		res.Range = commits[lo : hi+1]
	}
	for k := range res.Steps {
		s := &res.Steps[k]
		if s.Index < 0 || s.Verdict == Skip || s.Verdict == Undecided {
			continue
		}
		v, o := Good, Same
		if s.Index >= hi {
			v, o = Bad, Different
		}
		s.Verdict = v
		if t, ok := tests[s.Index]; ok {
			t.Outcome, t.Upper, t.Lower = o, opts.nameThreshold(1), -opts.nameThreshold(1)
			s.Test, s.PGood, s.PBad = &t, t.PGood, t.PBad
			s.Why = fmt.Sprintf("%s by the search's likelihood rule (its own looks: %s); median %.4g, n=%d, %d look(s)", map[Verdict]string{Good: "like good", Bad: "like bad"}[v], s.Test, s.Median, s.N, len(s.Looks))
		}
	}
	noteMoreChanges(res, commits)
	res.Confidence = 1 - opts.Alpha
	res.ConfidenceWhy = fmt.Sprintf("1 - alpha: a commit is named only when its likelihood beats every other candidate's d commits away by 2^(d+1)/%.3g, which names a wrong one at most %.3g of the time for a known change and spread (Ville's inequality, summed over the candidates); the rest of alpha %.3g pays for both being estimated", opts.searchAlpha(), opts.searchAlpha(), opts.Alpha)
}

// settledLLR is the log likelihood ratio by which the named culprit
// must be more like bad than like the middle of good and bad, and its
// parent more like good than like the middle, before the culprit is
// named: a commit between two changes sits at the middle, and the
// likelihood rule - which knows only "like good" and "like bad" - can
// call it either way on a few looks. Under a single change the culprit
// and its parent mostly reach it with a look or two more; the level is
// the calibration bench's trade (kregress-calibrate -only bisect: the
// one-change rows' boots against the two-change rows' third commits).
const settledLLR = 0.7

// unsettled is the commit of a single named position (the culprit k or
// its parent k-1) not yet settledLLR more like its side than like the
// middle; -1 when both are (or the block is a range).
func unsettled(tests map[int]Comparison, block []int) int {
	if len(block) != 1 {
		return -1
	}
	k := block[0]
	if t, ok := tests[k]; ok && t.mid && t.badOverMid < settledLLR {
		return k
	}
	if t, ok := tests[k-1]; ok && t.mid && t.goodOverMid < settledLLR {
		return k - 1
	}
	return -1
}
