package bisect

import (
	"context"
	"fmt"
	"math"
)

// A metric step is decided by a sequential probability ratio test (Wald)
// between "like good" and "like bad", fed only with comparisons inside
// one look: each look boots the step and both endpoints interleaved, and
// the step's level is measured against that look's own endpoints
//
//	d = mean(step) - (mean(good) + mean(bad)) / 2 + change / 2
//
// (on log values when every figure is positive, so that a host k% slower
// during a look moves every boot of it alike and cancels exactly). Under
// "like good" d is around 0, under "like bad" around change (the
// endpoints' change, estimated from every look that booted both, again
// within looks). The looks' log likelihood ratios add up; the step is
// bad when the sum reaches log((1-e)/e) and good when it falls to
// log(e/(1-e)), e the step's share of alpha: by Wald's bounds a step like
// good is called bad at most about e of the time, and one like bad called
// good at most about e - so "good" (Pinpoint's "same") is backed by power.
// The spread and the change are estimated, not known; the calibration
// bench measures the error rates this gives through this code.

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
// (on scale sc): each point's spread around its own mean in its own look.
func withinLook(sc scale, ls []Look) float64 {
	ss, df := 0.0, 0
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
		return math.NaN()
	}
	v := ss / float64(df)
	if df > 4 {
		// The spread is estimated: a t's variance, df/(df-2) times the
		// estimate, keeps the test from trusting few boots too much.
		v *= float64(df) / float64(df-2)
	}
	return v
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
// spread); e is the step's error rate.
func sprt(prior, looks []Look, e float64) Comparison {
	all := append(append([]Look(nil), prior...), looks...)
	sc := scaleOf(all)
	v := withinLook(sc, all)
	delta, w := endpointChangeW(sc, all)
	if v == 0 && delta != 0 {
		// Every boot of a kernel gave the same figure: any look is
		// decisive; a spread far below the change says so without
		// dividing by zero.
		v = delta * delta * 1e-6
	}
	c := Comparison{Upper: math.Log((1 - e) / e), Lower: math.Log(e / (1 - e)), Outcome: Unsure}
	num, den := 0.0, 0.0
	var vsG, vsB []Stratum
	for _, l := range looks {
		if len(l.Step) == 0 || len(l.Good) == 0 || len(l.Bad) == 0 {
			continue
		}
		vsG, vsB = append(vsG, Stratum{X: l.Step, Y: l.Good}), append(vsB, Stratum{X: l.Step, Y: l.Bad})
		d := tmean(sc, l.Step) - (tmean(sc, l.Good)+tmean(sc, l.Bad))/2 + delta/2
		// The change is estimated too: its variance (v / w) enters
		// through the midpoint it places, a quarter of it.
		vk := v * (1/float64(len(l.Step)) + 0.25/float64(len(l.Good)) + 0.25/float64(len(l.Bad)) + 0.25/w)
		if vk > 0 && !math.IsNaN(vk) && !math.IsNaN(delta) {
			c.LLR += delta * (d - delta/2) / vk
		}
		num += d / vk
		den += 1 / vk
	}
	if delta != 0 && den > 0 {
		c.Position = num / den / delta
	}
	up := delta > 0
	c.PGood, c.PBad = stratifiedP(vsG, up), stratifiedP(vsB, !up)
	switch {
	case len(vsG) == 0 || math.IsNaN(c.LLR):
	case c.PGood < e/2 && c.PBad < e/2:
		c.Outcome = Between
	case c.LLR >= c.Upper:
		c.Outcome = Different
	case c.LLR <= c.Lower:
		c.Outcome = Same
	}
	return c
}

// measureStep measures one commit look by look until its test calls it
// or the looks run out (then it is undecided: a skip). prior are the
// bisect's looks that booted both endpoints so far.
func measureStep(ctx context.Context, p Prober, step *Step, good, bad string, prior []Look, opts Options) error {
	e := opts.stepAlpha()
	// Looks measured already (the first midpoint's, in the endpoints'
	// looks) are judged before any new one.
	for look := max(0, len(step.Looks)-1); look < len(opts.Reps); look++ {
		if look >= len(step.Looks) {
			reps := opts.Reps[look]
			s, err := p.Measure(ctx, step.Commit, good, bad, reps)
			if err != nil {
				return err
			}
			step.add(s, Look{StepBoots: reps, GoodBoots: reps, BadBoots: reps})
		}
		step.Median, step.N = median(step.Samples), len(step.Samples)
		if step.Crashes > 0 {
			step.Verdict, step.Why = Skip, fmt.Sprintf("its kernel failed in %d cell(s) while bisecting a metric", step.Crashes)
			return nil
		}
		c := sprt(prior, step.Looks, e)
		step.Test, step.PGood, step.PBad = &c, c.PGood, c.PBad
		where := fmt.Sprintf("median %.4g; in its looks good %.4g, bad %.4g; n=%d, look %d", step.Median, median(step.GoodSamples), median(step.BadSamples), step.N, look+1)
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
