package bisect

import (
	"context"
	"fmt"
	"math"
)

// Crash mode. The model (syzkaller's): the good endpoint never fails, and
// from the culprit on a kernel fails in each boot with some probability
// p, the bad endpoint's. A failing step is therefore bad for certain; a
// step with m clean boots is called good only when a bad kernel would
// have failed in one of them with probability >= 1 - alpha. p is not
// known: it is estimated from the bad endpoint's boots, and the chance of
// m clean boots is averaged over what those boots say about p (a Beta
// posterior, Jeffreys' prior), so a rate estimated from few boots costs
// more clean boots rather than a wrong call. A step needs Miss <= e/2, e
// its share of alpha: the other half pays for the rate being estimated
// (averaged over the posterior, the miss is right on average over rates,
// but a rate over-estimated by chance gets too few boots; e/2 keeps the
// wrong-culprit rate within the misses the bisects state plus that margin,
// which the crash-bisect rows of docs/calibration.md check).

// Rate is a count of failed boots of a kernel.
type Rate struct {
	Failed int `json:"failed"`
	Boots  int `json:"boots"`
}

// Miss is P(no failure in m boots | the kernel fails like the bad
// endpoint): E[(1-p)^m] under p ~ Beta(Failed + 1/2, Boots - Failed +
// 1/2).
func (r Rate) Miss(m int) float64 {
	a, b := float64(r.Failed)+0.5, float64(r.Boots-r.Failed)+0.5
	l := 0.0
	for i := 0; i < m; i++ {
		l += math.Log((b + float64(i)) / (a + b + float64(i)))
	}
	return math.Exp(l)
}

// BootsFor is the fewest clean boots m with Miss(m) <= alpha (capped at
// maxCrashBoots).
func (r Rate) BootsFor(alpha float64) int {
	m := 0
	for ; m < maxCrashBoots && r.Miss(m) > alpha; m++ {
	}
	return m
}

func (r Rate) String() string {
	return fmt.Sprintf("%d of %d boots failed (%.0f%%)", r.Failed, r.Boots, 100*float64(r.Failed)/math.Max(1, float64(r.Boots)))
}

const (
	// crashTarget: the bad endpoint is booted until it has failed this
	// often (or crashEndpointCap boots), so its rate is known to within
	// a factor the posterior accounts for.
	crashTarget = 4
	// crashEndpointCap: a bad endpoint that has not failed in this many
	// boots does not reproduce (at a 5% rate it would have failed with
	// probability 0.92).
	crashEndpointCap = 50
	// maxCrashBoots caps the clean boots a step can need (a rate from a
	// single failure in 50 boots).
	maxCrashBoots = 400
)

// crashRate is the failure rate of a bad kernel so far: the bad
// endpoint's boots and those of every step that failed (under the model
// they fail alike; a step's boots stop at its first failure, which does
// not bias the rate's likelihood).
func crashRate(steps []Step) Rate {
	var r Rate
	for _, s := range steps {
		switch {
		case s.Index == -1:
			r.Failed += s.BadCrashes
			r.Boots += bootsOf(&s, true)
		case s.Verdict == Bad && s.Crashes > 0:
			r.Failed += s.Crashes
			r.Boots += s.N
		}
	}
	return r
}

func bootsOf(e *Step, bad bool) int {
	n := 0
	for _, l := range e.Looks {
		if bad {
			n += l.BadBoots
		} else {
			n += l.GoodBoots
		}
	}
	return n
}

// lookSize is the size of the k-th look: Reps[k], the last repeated.
func lookSize(reps []int, k int) int {
	if k < len(reps) {
		return reps[k]
	}
	return reps[len(reps)-1]
}

// measureCrashEndpoints boots the bad endpoint until it has failed
// crashTarget times (or crashEndpointCap boots), and the good endpoint,
// interleaved with it, until its clean boots would pass a step as good
// at the bad endpoint's rate (the good endpoint must pass the test a good
// step passes). Each look boots only the endpoints still needed.
func measureCrashEndpoints(ctx context.Context, p Prober, e *Step, good, bad string, opts Options) error {
	for k := 0; ; k++ {
		rate := Rate{Failed: e.BadCrashes, Boots: bootsOf(e, true)}
		needBad := e.BadCrashes < crashTarget && rate.Boots < crashEndpointCap
		// Until bad has failed once, good is booted beside it (nothing
		// tells yet how many clean boots good needs).
		needGood := e.GoodCrashes == 0 && (e.BadCrashes == 0 || bootsOf(e, false) < crashNeed(rate, opts))
		if e.BadCrashes == 0 && !needBad {
			needGood = false
		}
		if !needBad && !needGood {
			break
		}
		reps := lookSize(opts.Reps, k)
		g, b := "", ""
		l := Look{}
		if needGood {
			g, l.GoodBoots = good, reps
		}
		if needBad {
			b, l.BadBoots = bad, reps
		}
		s, err := p.Measure(ctx, "", g, b, reps)
		if err != nil {
			return err
		}
		e.add(s, l)
		if e.GoodCrashes > 0 {
			break
		}
	}
	r := Rate{Failed: e.BadCrashes, Boots: bootsOf(e, true)}
	e.Why = fmt.Sprintf("good: %d of %d boots failed; bad: %s", e.GoodCrashes, bootsOf(e, false), r)
	if r.Failed > 0 && e.GoodCrashes == 0 {
		e.Miss = r.Miss(bootsOf(e, false))
	}
	return nil
}

// crashNeed is the clean boots that call a point good.
func crashNeed(rate Rate, opts Options) int { return rate.BootsFor(opts.stepAlpha() / 2) }

// measureCrashStep boots the step alone, look by look, until it fails
// (bad) or its clean boots reach BootsFor(alpha) (good).
func measureCrashStep(ctx context.Context, p Prober, step *Step, rate Rate, opts Options) error {
	need := crashNeed(rate, opts)
	for k := 0; ; k++ {
		clean := step.N
		if clean >= need {
			step.Miss = rate.Miss(clean)
			step.Verdict = Good
			step.Why = fmt.Sprintf("all %d boots ok: a kernel failing like the bad endpoint (%s) would have failed in one with probability %.4f", clean, rate, 1-step.Miss)
			return nil
		}
		reps := min(lookSize(opts.Reps, k), need-clean)
		s, err := p.Measure(ctx, step.Commit, "", "", reps)
		if err != nil {
			return err
		}
		step.add(s, Look{StepBoots: reps})
		step.N += reps
		if step.Crashes > 0 {
			step.Verdict = Bad
			step.Why = fmt.Sprintf("its kernel failed in %d of %d boots", step.Crashes, step.N)
			return nil
		}
	}
}

// crashPosterior is the posterior chance, under crash mode's model, that
// res.Culprit is the first commit to fail, given every boot the bisect
// made: the culprit a priori at any position with equal chance, the
// failure rate p of a bad kernel under Jeffreys' prior, commits before
// the culprit never failing and commits from it on failing in each boot
// with chance p. A position after a commit that failed is impossible,
// and so is one between two commits with the same bzImage; any other
// position k has likelihood B(F_k + 1/2, C_k + 1/2), F_k and C_k the
// failed and clean boots of the commits from k on (the bad endpoint's
// included) - the binomial likelihood with p integrated out, which the
// looks' stopping rules do not change. Unlike a sum of the good calls'
// misses, each at the rate known when it was made, it weighs a good
// call's clean boots against every position before it, with the rate
// every bad boot of the bisect gives; 0 when no single commit is named.
// commits are the bisect's, good first, bad last.
func crashPosterior(res *Result, commits []string) float64 {
	if res.Culprit == "" {
		return 0
	}
	n, named := len(commits)-1, -1
	if res.Culprit == commits[n] {
		named = n
	}
	failed, clean := map[int]int{}, map[int]int{}
	images := map[string]int{}
	var same [][2]int
	for _, s := range res.Steps {
		switch {
		case s.Index == -1:
			r := Rate{Failed: s.BadCrashes, Boots: bootsOf(&s, true)}
			failed[-1], clean[-1] = r.Failed, r.Boots-r.Failed
		case s.Index >= 0:
			if s.Commit == res.Culprit {
				named = s.Index
			}
			if s.Image != "" {
				if j, ok := images[s.Image]; ok && j != s.Index {
					same = append(same, [2]int{min(j, s.Index), max(j, s.Index)})
				} else {
					images[s.Image] = s.Index
				}
			}
			if s.Verdict == Skip {
				continue
			}
			failed[s.Index] += s.Crashes
			clean[s.Index] += s.N - s.Crashes
		}
	}
	if named < 0 {
		return 0
	}
	// Positions run 1..n (n: the bad endpoint).
	last := n
	top, num, den := math.Inf(-1), 0.0, 0.0
	logw := make([]float64, last+1)
	for k := 1; k <= last; k++ {
		logw[k] = math.Inf(-1)
		ok := true
		for i, f := range failed {
			if i >= 0 && i < k && f > 0 {
				ok = false
			}
		}
		for _, p := range same {
			if p[0] < k && k <= p[1] {
				ok = false
			}
		}
		if !ok {
			continue
		}
		f, c := float64(failed[-1]), float64(clean[-1])
		for i := range failed {
			if i >= k {
				f, c = f+float64(failed[i]), c+float64(clean[i])
			}
		}
		logw[k] = lbeta(f+0.5, c+0.5)
		top = math.Max(top, logw[k])
	}
	for k := 1; k <= last; k++ {
		w := math.Exp(logw[k] - top)
		den += w
		if k == named {
			num = w
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// countGood counts the steps called good.
func countGood(steps []Step) int {
	n := 0
	for _, s := range steps {
		if s.Index >= 0 && s.Verdict == Good {
			n++
		}
	}
	return n
}
