package bisect

import (
	"context"
	"fmt"
	"math"

	"github.com/kregress/kregress/internal/stats"
)

// A metric step's evidence is a log likelihood ratio between "like good"
// and "like bad", fed only with comparisons inside one look. Once the
// endpoints' looks have measured their change, a look boots the step
// with one endpoint, good and bad in turn, and the step is measured
// against that look's own endpoint boots: its difference
//
//	G = mean(step) - mean(good)                     (a look with good)
//	B = mean(step) - mean(bad)                      (a look with bad)
//	M = mean(step) - (mean(good) + mean(bad)) / 2   (a look with both)
//
// (on log values when every figure is positive, so that a host k% slower
// during a look moves every boot of it alike and cancels exactly). Like
// good, (G, B, M) lie around (0, -change, -change/2); like bad around
// (change, 0, change/2) - the change estimated within looks from every
// look that booted both endpoints and from settled steps' looks
// (priorLooks). A step against one endpoint costs two boots where one
// against both cost three, for about the same information. Each kind is
// pooled over the step's looks (precision-weighted), and the change's
// estimation error, shared by every look, is integrated out of both
// likelihoods (gaussLogLik); the spread, pooled over every look of the
// bisect, is inflated to a t's variance for its degrees of freedom.
//
// The metric search (posterior.go) sums these ratios into each candidate
// culprit's likelihood and decides with them. StepOnce (git bisect run,
// no state between steps) calls one commit with a Wald test on the same
// ratio: bad when it reaches log((1-e)/e), good when it falls to
// log(e/(1-e)); by Wald's bounds, for a known change and spread, a step
// like good is called bad at most about e of the time and one like bad
// called good at most about e - so "good" (Pinpoint's "same") is backed
// by power. Both are estimated, so e is 0.65 of the step's share.

// Outcome is the typed state of a step's test (Pinpoint's three).
type Outcome string

const (
	// Different: the step differs from good as bad does (it is bad).
	Different Outcome = "different"
	// Same: the step is like good, and a step like bad would have been
	// seen with probability >= 1 - e.
	Same Outcome = "same"
	// Unsure: neither yet; measure again (Pinpoint's "unknown").
	Unsure Outcome = "unsure"
	// Between: the step differs from both endpoints (two changes, or a
	// partial one): no later look makes it like either.
	Between Outcome = "between"
)

// Comparison is a step's test after its last look.
type Comparison struct {
	Outcome Outcome `json:"outcome"`
	// LLR is the log likelihood ratio "like bad" over "like good";
	// Upper and Lower the bounds that call it.
	LLR   float64 `json:"llr"`
	Upper float64 `json:"upper"`
	Lower float64 `json:"lower"`
	// Position: where the step lies, 0 at good, 1 at bad.
	Position float64 `json:"position"`
	// PGood and PBad: the stratified rank tests (within looks) of the
	// step against good (toward bad) and against bad (toward good); both
	// below the step's level is "between".
	PGood float64 `json:"p_good"`
	PBad  float64 `json:"p_bad"`
	// badOverMid and goodOverMid are the log likelihood ratios of "like
	// bad" and of "like good" over "halfway between" (mid: known).
	badOverMid, goodOverMid float64
	mid                     bool
}

func (c *Comparison) String() string {
	if c == nil {
		return "not measured"
	}
	return fmt.Sprintf("%s: log likelihood ratio %.2f (bad at %.2f, good at %.2f), position %.2f of the way from good to bad; within-look rank p vs good %.4f, vs bad %.4f",
		c.Outcome, c.LLR, c.Upper, c.Lower, c.Position, c.PGood, c.PBad)
}

// scale maps figures to the scale the test works on: log when every
// figure is positive (a multiplicative drift cancels within a look).
type scale struct{ log bool }

func (s scale) f(x float64) float64 {
	if s.log {
		return math.Log(x)
	}
	return x
}

func scaleOf(ls []Look) scale {
	for _, l := range ls {
		for _, set := range [][]float64{l.Step, l.Good, l.Bad} {
			for _, x := range set {
				if !(x > 0) {
					return scale{}
				}
			}
		}
	}
	return scale{log: true}
}

func tmean(sc scale, xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += sc.f(x)
	}
	return s / float64(len(xs))
}

// withinLook is the pooled within-look variance of every point's boots
// (on scale sc): each point's spread around its own mean in its own look;
// df its degrees of freedom.
func withinLook(sc scale, ls []Look) (v float64, df int) {
	ss := 0.0
	for _, l := range ls {
		for _, set := range [][]float64{l.Step, l.Good, l.Bad} {
			if len(set) < 2 {
				continue
			}
			m := tmean(sc, set)
			for _, x := range set {
				ss += (sc.f(x) - m) * (sc.f(x) - m)
			}
			df += len(set) - 1
		}
	}
	if df == 0 {
		return math.NaN(), 0
	}
	return ss / float64(df), df
}

// endpointChange is the endpoints' change on scale sc: over the looks
// that booted both, the precision-weighted mean of bad's mean minus
// good's (each difference taken within its look).
func endpointChange(sc scale, ls []Look) float64 {
	d, _ := endpointChangeW(sc, ls)
	return d
}

// endpointChangeW also returns the summed weight: var(change) is the
// within-look variance over it.
func endpointChangeW(sc scale, ls []Look) (float64, float64) {
	num, den := 0.0, 0.0
	for _, l := range ls {
		if len(l.Good) == 0 || len(l.Bad) == 0 {
			continue
		}
		w := 1 / (1/float64(len(l.Good)) + 1/float64(len(l.Bad)))
		num += w * (tmean(sc, l.Bad) - tmean(sc, l.Good))
		den += w
	}
	if den == 0 {
		return math.NaN(), 0
	}
	return num / den, den
}

// sprt returns the step's test over its looks. prior are the looks of
// the bisect so far that booted both endpoints (for the change and the
// spread); e is the step's error rate; z the outlier screen's cut in
// robust standard deviations (Options.outlierZ; +Inf: no screen).
func sprt(prior, looks []Look, e, z float64) Comparison {
	all := append(append([]Look(nil), prior...), looks...)
	sc := scaleOf(all)
	// Outlying boots are set aside before any mean is taken: a Gaussian
	// likelihood gives one boot the host starved (a figure several times
	// the others) the weight of a real change.
	cut := outlierCuts(sc, all, z)
	all, looks = withoutOutliers(sc, all, cut), withoutOutliers(sc, looks, cut)
	v, df := withinLook(sc, all)
	delta, w := endpointChangeW(sc, all)
	if v == 0 && delta != 0 {
		// Every boot of a kernel gave the same figure: any look is
		// decisive; a spread far below the change says so without
		// dividing by zero.
		v = delta * delta * 1e-6
	}
	c := Comparison{Upper: math.Log((1 - e) / e), Lower: math.Log(e / (1 - e)), Outcome: Unsure}
	if df > 2 {
		// The spread is estimated with df degrees of freedom: its
		// variance is inflated to a t's (df / (df - 2)), so a spread
		// from few boots is trusted less.
		v *= float64(df) / float64(df-2)
	}
	tau2 := math.NaN()
	if w > 0 {
		tau2 = v / w
	}
	ev := poolLooks(sc, looks, v, delta, tau2, z)
	ok := ev.den > 0 && !math.IsNaN(delta) && v > 0 && w > 0 && !math.IsInf(1/ev.den, 0)
	if ok {
		c.LLR = ev.logLikRatio(delta, tau2)
		ok = !math.IsNaN(c.LLR) && !math.IsInf(c.LLR, 0)
		t2 := tau2 + midSlack*delta*delta
		mid := ev.logLik(likeMid, delta, t2)
		c.badOverMid, c.goodOverMid = ev.logLik(likeBad, delta, t2)-mid, ev.logLik(likeGood, delta, t2)-mid
		c.mid = ok && !math.IsNaN(mid)
	}
	if delta != 0 && ev.den > 0 {
		c.Position = ev.num / ev.den / delta
	}
	up := delta > 0
	c.PGood, c.PBad = stratifiedP(ev.vsG, up), stratifiedP(ev.vsB, !up)
	between := ev.between(c.PGood, c.PBad, ok && delta != 0, delta, tau2, e) && betweenWithoutAnyLook(sc, looks, v, delta, tau2, e, z, ok && delta != 0)
	switch {
	case len(ev.vsG)+len(ev.vsB) == 0 || !ok:
	case between:
		c.Outcome = Between
	case c.LLR >= c.Upper:
		c.Outcome = Different
	case c.LLR <= c.Lower:
		c.Outcome = Same
	}
	return c
}

// between is the step's "between" test on its pooled looks: both
// within-look rank tests (pGood, pBad) below e/2, or, when level is
// set (the change is known), the placed level (levelBetween).
func (ev stepEvidence) between(pGood, pBad float64, level bool, delta, tau2, e float64) bool {
	if pGood < e/2 && pBad < e/2 {
		return true
	}
	return level && ev.den > 0 && ev.levelBetween(delta, tau2, e)
}

// betweenWithoutAnyLook asks whether the step is still between with any
// one of its looks left out. "Between" makes the step a skip, which the
// search never revisits, so it must not rest on one look: each side's
// test is at level e/2 for Gaussian boots, but one look can be a host
// that starved the guest, and a look whose step boots are one or two
// is beyond the outlier screen's reach (a median needs three boots, a
// pair can only be dropped whole). With every look left out in turn,
// a commit like one endpoint is called between only if two of its
// looks are disturbed, and never from a single look or boot; on
// Gaussian boots the condition only removes calls, so the level stays
// at most e/2 per side.
func betweenWithoutAnyLook(sc scale, looks []Look, v, delta, tau2, e, z float64, level bool) bool {
	if poolLooks(sc, looks, v, delta, tau2, z).looks < 2 {
		return false
	}
	up := delta > 0
	rest := make([]Look, 0, len(looks)-1)
	for i := range looks {
		rest = append(append(rest[:0], looks[:i]...), looks[i+1:]...)
		ev := poolLooks(sc, rest, v, delta, tau2, z)
		if !ev.between(stratifiedP(ev.vsG, up), stratifiedP(ev.vsB, !up), level, delta, tau2, e) {
			return false
		}
	}
	return true
}

// stepEvidence is what a step's looks say, pooled by poolLooks.
type stepEvidence struct {
	looks    int        // the looks counted (a step boot, not outlying)
	pk, sk   [3]float64 // per kind of look: precision, precision-weighted sum
	num, den float64    // the placed level: precision-weighted sum, precision
	vsG, vsB []Stratum  // the step against good, against bad, per look
}

// poolLooks pools the step's looks. Each look gives the step's difference
// from what it booted beside it, of one of three kinds: from good (G),
// from bad (B), from the middle of both (M). Pooled per kind
// (precision-weighted), like good they lie at (0, -change, -change/2),
// like bad at (change, 0, change/2). v is the spread, delta the change,
// tau2 the variance of its estimate. A look whose level lies far outside
// good..bad (z standard deviations) is left out (outlyingLook).
func poolLooks(sc scale, looks []Look, v, delta, tau2, z float64) stepEvidence {
	var ev stepEvidence
	for _, l := range looks {
		ng, nb := len(l.Good), len(l.Bad)
		if len(l.Step) == 0 || ng+nb == 0 {
			continue
		}
		ms := tmean(sc, l.Step)
		var kind int
		var d, vk, shift float64
		switch {
		case ng > 0 && nb > 0:
			kind, d, shift = 2, ms-(tmean(sc, l.Good)+tmean(sc, l.Bad))/2, delta/2
			vk = v * (1/float64(len(l.Step)) + 0.25/float64(ng) + 0.25/float64(nb))
		case ng > 0:
			kind, d = 0, ms-tmean(sc, l.Good)
			vk = v * (1/float64(len(l.Step)) + 1/float64(ng))
		default:
			kind, d, shift = 1, ms-tmean(sc, l.Bad), delta
			vk = v * (1/float64(len(l.Step)) + 1/float64(nb))
		}
		if outlyingLook(d+shift, vk+tau2, delta, z) {
			continue
		}
		if ng > 0 {
			ev.vsG = append(ev.vsG, Stratum{X: l.Step, Y: l.Good})
		}
		if nb > 0 {
			ev.vsB = append(ev.vsB, Stratum{X: l.Step, Y: l.Bad})
		}
		ev.looks++
		ev.pk[kind] += 1 / vk
		ev.sk[kind] += d / vk
		// The level placed at 0 like good, change like bad: the
		// position reported.
		ev.num += (d + shift) / vk
		ev.den += 1 / vk
	}
	return ev
}

// logLikRatio is the log likelihood ratio of "like bad" to "like good".
// The change is estimated (variance tau2) and its error is shared by
// every look of a kind and by both kinds against one endpoint: the
// likelihoods integrate it out (a normal with covariance D + tau^2 a a',
// D the kinds' variances, a where the change enters). Like good, a look
// beside good says nothing of the change, like bad one beside bad says
// nothing: so a step far from good is not held back by how well the
// change is known (a single pooled level would be: its evidence would
// stop growing at the change's precision).
func (ev stepEvidence) logLikRatio(delta, tau2 float64) float64 {
	return ev.logLik(likeBad, delta, tau2) - ev.logLik(likeGood, delta, tau2)
}

// Where a step's differences from good, from bad and from the middle of
// both lie, in units of the change: like bad, like good, and halfway.
var (
	likeBad  = [3]float64{1, 0, 0.5}
	likeGood = [3]float64{0, -1, -0.5}
	likeMid  = [3]float64{0.5, -0.5, 0}
)

// logLik is the step's log likelihood (gaussLogLik) when its
// differences lie at a times the change.
func (ev stepEvidence) logLik(a [3]float64, delta, tau2 float64) float64 {
	var m [3]float64
	for k := range m {
		if ev.pk[k] > 0 {
			m[k] = ev.sk[k] / ev.pk[k]
		}
	}
	return gaussLogLik(m, ev.pk, a, delta, tau2)
}

// levelBetween asks whether the step lies between good and bad of the
// placed level (normal, the change's error, variance tau2, included):
// more power than the rank tests with few boots, so a step halfway
// between is seen before the likelihood ratio - which knows only "like
// good" and "like bad" - is pushed to one side by it.
func (ev stepEvidence) levelBetween(delta, tau2, e float64) bool {
	lvl, se := ev.num/ev.den/delta, math.Sqrt(1/ev.den+tau2)/math.Abs(delta)
	tail := func(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }
	return tail(lvl/se) < e/2 && tail((1-lvl)/se) < e/2
}

// stepLook is a look at step of reps boots: interleaved with both
// endpoints, or, once the change is known (oneRef), with one endpoint,
// good and bad in turn (refBad says whose turn it is).
func stepLook(step *Step, good, bad string, reps int, oneRef bool) (g, b string, l Look) {
	g, b, l = good, bad, Look{StepBoots: reps, GoodBoots: reps, BadBoots: reps}
	if oneRef {
		if refBad(step.Looks) {
			g, l.GoodBoots = "", 0
		} else {
			b, l.BadBoots = "", 0
		}
	}
	return g, b, l
}

// stepFailures is how many of a step's cells must fail before a metric
// bisect skips it. One failed cell beside good ones is what a guest
// that missed its boot deadline on a loaded host looks like, and a
// skip is for good: the commit, and every commit with its bzImage, is
// never measured again, and the skipped positions can leave the search
// only a range where a plain bisect, booting the commit again, names
// the culprit. A kernel that does not boot fails its next cell too, so
// a look of two boots still skips it at once.
const stepFailures = 2

// failedSkip reports whether a step whose kernel failed in crashes
// cells is a skip, and says why.
func failedSkip(crashes int) (bool, string) {
	if crashes < stepFailures {
		return false, ""
	}
	return true, fmt.Sprintf("its kernel failed in %d cell(s) while bisecting a metric", crashes)
}

// tally updates the step's median and n after a look and reports whether
// the look ended it: a kernel that failed in stepFailures cells while a
// metric is bisected makes the step a skip.
func (s *Step) tally() (ended bool) {
	s.Median, s.N = stats.Median(s.Samples), len(s.Samples)
	if skip, why := failedSkip(s.Crashes); skip {
		s.Verdict, s.Why = Skip, why
		return true
	}
	return false
}

// measureLook boots the look l (from stepLook) of the step beside the
// endpoints g and b (either may be "": not booted) and adds its boots.
func (s *Step) measureLook(ctx context.Context, p Prober, g, b string, l Look) error {
	smp, err := p.Measure(ctx, s.Commit, g, b, l.StepBoots)
	if err != nil {
		return err
	}
	s.add(smp, l)
	return nil
}

// judge tallies the step after a look and, unless that ended it (tally),
// tests its looks against prior at level e (outlier screen z, as sprt)
// and keeps the outcome on the step (Test, PGood, PBad).
func (s *Step) judge(prior []Look, e, z float64) (c Comparison, ended bool) {
	if s.tally() {
		return Comparison{}, true
	}
	c = sprt(prior, s.Looks, e, z)
	s.Test, s.PGood, s.PBad = &c, c.PGood, c.PBad
	return c, false
}

// measureStep measures one commit look by look until its test calls it
// or the looks run out (then it is undecided: a skip): StepOnce, which
// has no bisect around it. Its first look boots both endpoints
// (opts.Reps), the change read from its own looks; later looks boot the
// step with one endpoint only (good and bad in turn, opts.StepReps boots
// each).
func measureStep(ctx context.Context, p Prober, step *Step, good, bad string, prior []Look, opts Options) error {
	return measureCalled(ctx, p, step, good, bad, prior, opts, stepCall)
}

// stepCall is a step's call: its test's outcome as sprt gives it.
func stepCall(c Comparison) Outcome { return c.Outcome }

// measureCalled is measureStep with the call made by call from the
// step's test after each look (stepCall for a bisect step, revertCall
// for a revert); the call is kept as the test's outcome.
func measureCalled(ctx context.Context, p Prober, step *Step, good, bad string, prior []Look, opts Options, call func(Comparison) Outcome) error {
	// The test runs at estMargin of the step's share: Wald's bounds hold
	// for a known change and spread, and both are estimated here, so the
	// full share names more wrong culprits than alpha allows
	// (docs/design-notes.md).
	e := opts.stepAlpha() * estMargin
	oneRef := hasBoth(prior) || hasBoth(step.Looks)
	sched := opts.Reps
	if oneRef {
		sched = opts.StepReps
	}
	// Looks measured already (the first midpoint's, in the endpoints'
	// looks) are judged before any new one.
	for look := 0; ; look++ {
		if look > 0 || len(step.Looks) == 0 {
			if look >= len(sched) {
				break
			}
			reps := sched[look]
			g, b, l := stepLook(step, good, bad, reps, oneRef)
			if err := step.measureLook(ctx, p, g, b, l); err != nil {
				return err
			}
		}
		c, ended := step.judge(prior, e, opts.outlierZ())
		if ended {
			return nil
		}
		c.Outcome = call(c)
		step.Test.Outcome = c.Outcome
		where := fmt.Sprintf("median %.4g; in its looks good %.4g, bad %.4g; n=%d, look %d", step.Median, stats.Median(step.GoodSamples), stats.Median(step.BadSamples), step.N, len(step.Looks))
		switch c.Outcome {
		case Different:
			step.Verdict, step.Why = Bad, "like bad: "+c.String()+"; "+where
			return nil
		case Same:
			step.Verdict, step.Why = Good, "like good: "+c.String()+"; "+where
			return nil
		case Between:
			step.Verdict, step.Why = Undecided, "between the endpoints, treated as a skip: "+c.String()+"; "+where
			return nil
		}
		opts.Report("bisect: %.12s undecided after %d boots (%s): measuring again", step.Commit, step.N, c.String())
	}
	step.Verdict = Undecided
	step.Why = fmt.Sprintf("no call after %d boots, treated as a skip: %s", step.N, step.Test)
	return nil
}

// hasBoth: some look booted both endpoints (the change is known).
func hasBoth(ls []Look) bool {
	for _, l := range ls {
		if len(l.Good) > 0 && len(l.Bad) > 0 {
			return true
		}
	}
	return false
}

// refBad: the next one-endpoint look boots bad, when the step's looks so
// far booted good more often (so both sides' rank tests, and with them
// "between", see looks).
func refBad(ls []Look) bool {
	g, b := 0, 0
	for _, l := range ls {
		g += len(l.Good)
		b += len(l.Bad)
	}
	return g > b
}

// gaussLogLik is log N(m; delta a, D + tau2 a a') up to a constant that
// does not depend on a: D diagonal with precisions p (a kind with none
// is left out), by Sherman-Morrison.
func gaussLogLik(m, p, a [3]float64, delta, tau2 float64) float64 {
	quad, ar, aa := 0.0, 0.0, 0.0
	for k := range m {
		if p[k] == 0 {
			continue
		}
		r := m[k] - delta*a[k]
		quad += p[k] * r * r
		ar += p[k] * a[k] * r
		aa += p[k] * a[k] * a[k]
	}
	if tau2 > 0 {
		quad -= ar * ar / (1/tau2 + aa)
	}
	return -0.5*quad - 0.5*math.Log1p(tau2*aa)
}

// The likelihood is Gaussian on the figures' scale; real boots have
// heavy tails (a cell now and then several times slower or faster than
// its neighbours). A boot is taken as an outlier, and left out of the
// means and the spread, when it lies farther than outlierZ robust
// standard deviations from the median of its point in its look - the
// Gaussian with an outlier component, decided boot by boot. The robust
// spread is read from every pair of boots of one point in one look: for
// normal boots |x - y| has median 0.6745 sqrt(2) sigma, and the median
// of the pairs stands while fewer than half of them hold an outlier. On
// Gaussian boots so few are left out (a boot beyond outlierZ sigmas of a
// median of three) that the search's rates and boots do not move.
// Options.OutlierZ replaces it (+Inf: no screen, the plain Gaussian
// likelihood).
const outlierZ = 4.5

// cuts are the outlier screen's distances from a point's median (on the
// test's scale), one per kind of point in a look: its step's boots, its
// good's and its bad's.
type cuts struct{ step, good, bad float64 }

// noCuts screens nothing.
var noCuts = cuts{math.Inf(1), math.Inf(1), math.Inf(1)}

// minKindPairs is how many pairs a kind of point needs before its own
// robust spread is read: the median of three pairs stands with one
// outlying pair.
const minKindPairs = 3

// outlierCuts are the outlier screen's cuts: z robust standard
// deviations of the looks' pairs; noCuts when z is +Inf, or when the
// looks have too few pairs (or too many ties) to read a spread from.
//
// Each kind's cut is read from the larger of the pooled spread and the
// kind's own: the endpoints can differ in spread by orders of magnitude
// (a change that adds a fixed delay to a noisy figure leaves the bad
// kernel's logarithms 100 times quieter than good's), and the pooled
// median then lies in the quiet kind's pairs: a cut read from it would
// leave out every boot of the noisy endpoint and of every step like it -
// boots the likelihood's own pooled spread calls ordinary - and a commit
// like good would give no evidence until its looks ran out (skipped, it
// leaves the bisect a range: the e2e fixture's udelay did this). A
// step's own pairs are few at first: until it has minKindPairs, it is
// allowed the wider endpoint's spread, being like one of them. The
// pooled spread stays a floor, so no boot is screened that the pooled
// cut kept.
func outlierCuts(sc scale, ls []Look, z float64) cuts {
	if math.IsInf(z, 1) {
		return noCuts
	}
	var all, step, good, bad []float64
	for _, l := range ls {
		for _, k := range []struct {
			set []float64
			to  *[]float64
		}{{l.Step, &step}, {l.Good, &good}, {l.Bad, &bad}} {
			for i := range k.set {
				for j := i + 1; j < len(k.set); j++ {
					d := math.Abs(sc.f(k.set[i]) - sc.f(k.set[j]))
					*k.to = append(*k.to, d)
					all = append(all, d)
				}
			}
		}
	}
	if len(all) < 8 {
		return noCuts
	}
	pooled := pairSigma(all)
	if !(pooled > 0) {
		return noCuts
	}
	own := func(d []float64) float64 {
		if len(d) < minKindPairs {
			return 0
		}
		return pairSigma(d)
	}
	sg, sb, ss := own(good), own(bad), own(step)
	if len(step) < minKindPairs {
		ss = max(sg, sb)
	}
	return cuts{step: z * max(pooled, ss), good: z * max(pooled, sg), bad: z * max(pooled, sb)}
}

// pairSigma is the normal sigma whose pairs' absolute differences d
// have the median they have: |x - y| has median 0.6745 sqrt(2) sigma.
func pairSigma(d []float64) float64 {
	return stats.Median(d) / (0.6745 * math.Sqrt2)
}

// withoutOutliers returns the looks with every outlying boot left out
// (outlierCuts: each kind of point by its own cut). Of a point's two
// boots, neither can be told to be the outlier: both are left out when
// they lie farther apart than the cut allows two normal boots to.
func withoutOutliers(sc scale, ls []Look, c cuts) []Look {
	if c == noCuts {
		return ls
	}
	keep := func(set []float64, cut float64) []float64 {
		switch {
		case len(set) < 2:
			return set
		case len(set) == 2:
			if math.Abs(sc.f(set[0])-sc.f(set[1])) > cut*math.Sqrt2 {
				return nil
			}
			return set
		}
		m := sc.f(stats.Median(set))
		var out []float64
		for _, x := range set {
			if math.Abs(sc.f(x)-m) <= cut {
				out = append(out, x)
			}
		}
		if len(out) == len(set) {
			return set
		}
		return out
	}
	out := make([]Look, len(ls))
	for i, l := range ls {
		out[i] = l
		out[i].Step, out[i].Good, out[i].Bad = keep(l.Step, c.step), keep(l.Good, c.good), keep(l.Bad, c.bad)
	}
	return out
}

// outlyingLook: a look's level (placed at 0 like good, delta like bad),
// with variance vt, lies more than z standard deviations below
// good or beyond bad: the look is an outlier, not evidence - when a
// point's boots in a look are all outlying (both of two), no boot of
// the look stands out from its own point's, and a Gaussian likelihood
// would read a look several times the change as overwhelming evidence
// for the nearer hypothesis.
func outlyingLook(level, vt, delta, z float64) bool {
	if !(vt > 0) || math.IsNaN(delta) || delta == 0 || math.IsInf(z, 1) {
		return false
	}
	d := z * math.Sqrt(vt)
	lo, hi := math.Min(0, delta), math.Max(0, delta)
	return level < lo-d || level > hi+d
}

// midSlack widens, for the "like the middle" comparisons only, the
// change's prior variance by midSlack times its square: the endpoints
// are measured until they differ, so the change they give is biased
// upward by that stopping rule, and a bias of a quarter of the change
// already puts a bad commit (placed at 0.77) as near the middle as bad.
// With the change known only to within itself, "like bad" and "like the
// middle" are told apart by the step's own contrasts against each
// endpoint (like bad it does not differ from bad; halfway it differs
// from both by as much). Without it, a culprit whose endpoints came out
// large by chance was measured to its cap, never settled, and the
// bisect ended as a range (kregress-calibrate -only bisect: the Gaussian
// row's right share and the two-change row's third commits).
const midSlack = 1.0
