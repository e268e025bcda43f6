// Package bisectsim simulates the boots a bisect asks for, so that the
// product's own search (bisect.Run) can be measured on thousands of
// bisects: by the calibration bench (kregress-calibrate) and by the
// bisect package's tests. Nothing here runs a kernel.
package bisectsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/orchestrator/bisect"
)

// Prober is a simulated range of commits c0 (good) .. cN (bad). From
// Culprit on, the metric is Change higher (relative) and, in crash mode,
// each boot fails with probability CrashRate. Every boot's figure is
// Base * (1 + change) * (1 + CV * N(0,1)) * look, where look is the
// host's state during one Measure call: 1 + Drift * U(-1, 1), shared by
// every boot of the look (a host that is a little slower in one look
// than in the next).
type Prober struct {
	Rng     *rand.Rand
	Culprit int // index of the first changed commit; 0 or less: none
	Base    float64
	Change  float64
	CV      float64
	Drift   float64
	// Trend: the host moves by exactly Drift every look, the same way
	// through the whole bisect (up or down, drawn once): a steady drift,
	// the hardest case for pooled endpoint boots.
	Trend     bool
	CrashRate float64
	// Culprit2, when after Culprit, is a second change of the same
	// size: from it on the metric is (1 + Change)^2 higher (a range
	// holding two changes).
	Culprit2 int
	// OutlierRate of the boots (drawn independently) read OutlierFactor
	// times their figure: a boot whose cell the host starved now and
	// then (heavy tails).
	OutlierRate, OutlierFactor float64
	// LogSigma, when not 0, replaces the normal noise (CV) by lognormal
	// noise: a boot's figure is multiplied by exp(LogSigma N(0,1)).
	LogSigma float64
	// Resample, when not empty, replaces both: a boot's noise factor is
	// drawn from it with replacement (real boots' figures over their
	// median, so their tails and ties are the noise).
	Resample []float64
	// Added, when not 0, is a change that adds a fixed amount (a delay a
	// patch adds) from Culprit on, with relative noise AddedCV of its
	// own: a changed boot reads Base * noise + Added * (1 + AddedCV
	// N(0,1)), times the look. Small against Added, Base's noise leaves
	// the changed kernel's logarithms far quieter than the unchanged
	// one's - the endpoints differ in spread as well as in level.
	Added, AddedCV float64
	// Boots counts every simulated boot, Looks every Measure call.
	Boots, Looks int
	// Log holds every look in order, with the speculation plan in force
	// while it booted (Wall replays it on a time model).
	Log       []Event
	plan      []string
	host, dir float64
	// reverts are the points added after the bisect started (AddPoint):
	// by name, the commit reverted on the bad endpoint.
	reverts map[string]int
}

// Event is one look: its step commit ("" for the endpoints alone), its
// boots, and the commits speculation could build meanwhile.
type Event struct {
	Step  string
	Boots int
	Plan  []string
}

// SpeculationPlan implements bisect.PlanWatcher: it is told at the start
// of a look (before Measure).
func (p *Prober) SpeculationPlan(commits []string) {
	p.plan = append([]string(nil), commits...)
}

// Commits names the points c0 .. cN.
func Commits(n int) []string {
	cs := make([]string, n+1)
	for i := range cs {
		cs[i] = fmt.Sprintf("c%d", i)
	}
	return cs
}

func index(c string) int {
	var i int
	if _, err := fmt.Sscanf(c, "c%d", &i); err != nil {
		panic(fmt.Sprintf("bisectsim: not a simulated commit: %q", c))
	}
	return i
}

// Revert is the simulated range's bisect.Reverter: the bad endpoint with
// culprit reverted is the point whose Ref is the culprit (AddPoint reads
// it back).
func Revert(_ context.Context, _ *bisect.Spec, culprit string) (bisect.Point, string, error) {
	index(culprit)
	return bisect.Point{Ref: culprit}, "the bad endpoint without " + culprit, nil
}

// AddPoint implements the bisect's confirmation's prober: pt is the bad
// endpoint with pt.Ref (Revert's) reverted. Only the changes a range
// holds can be reverted: reverting any other commit leaves the bad
// endpoint as it is.
func (p *Prober) AddPoint(name string, pt bisect.Point) {
	if p.reverts == nil {
		p.reverts = map[string]int{}
	}
	p.reverts[name] = index(pt.Ref)
}

// Build implements bisect.Prober: every commit (and revert point) builds,
// to its own image. It reads nothing of p but the revert points (added
// before any build of theirs), so speculative builds may call it from
// another goroutine.
func (p *Prober) Build(_ context.Context, c string) (string, error) {
	if _, ok := p.reverts[c]; !ok {
		index(c)
	}
	return "image-" + c, nil
}

// changed: c carries the first change (a revert point: unless it is
// the one reverted).
func (p *Prober) changed(c string) bool {
	if k, ok := p.reverts[c]; ok {
		return p.Culprit > 0 && k != p.Culprit
	}
	return p.Culprit > 0 && index(c) >= p.Culprit
}

// second: c carries the second change too.
func (p *Prober) second(c string) bool {
	if k, ok := p.reverts[c]; ok {
		return p.Culprit2 > p.Culprit && p.Culprit > 0 && k != p.Culprit2
	}
	return p.Culprit2 > p.Culprit && p.Culprit > 0 && index(c) >= p.Culprit2
}

// noise is one boot's multiplicative noise.
func (p *Prober) noise() float64 {
	var f float64
	if len(p.Resample) > 0 {
		f = p.Resample[p.Rng.IntN(len(p.Resample))]
	} else {
		f = 1 + p.CV*p.Rng.NormFloat64()
		if p.LogSigma != 0 {
			f = math.Exp(p.LogSigma * p.Rng.NormFloat64())
		}
	}
	if p.OutlierRate > 0 && p.Rng.Float64() < p.OutlierRate {
		f *= p.OutlierFactor
	}
	return f
}

// Measure implements bisect.Prober.
func (p *Prober) Measure(_ context.Context, step, good, bad string, reps int) (*bisect.Samples, error) {
	p.Looks++
	if p.host == 0 {
		p.host, p.dir = 1, 1
		if p.Rng.IntN(2) == 0 {
			p.dir = -1
		}
	}
	u := 2*p.Rng.Float64() - 1
	if p.Trend {
		u = p.dir
	}
	p.host *= 1 + p.Drift*u
	look := p.host
	s := &bisect.Samples{}
	boot := func(c string, vals *[]float64, crashed *int) {
		if c == "" {
			return
		}
		changed := p.changed(c)
		for k := 0; k < reps; k++ {
			p.Boots++
			v := p.Base
			if changed {
				if p.CrashRate > 0 && p.Rng.Float64() < p.CrashRate {
					*crashed++
					continue
				}
				v *= 1 + p.Change
			}
			if p.second(c) {
				v *= 1 + p.Change
			}
			x := v * p.noise()
			if p.Added != 0 && changed {
				x += p.Added * (1 + p.AddedCV*p.Rng.NormFloat64())
			}
			*vals = append(*vals, x*look)
		}
	}
	before := p.Boots
	boot(step, &s.Step, &s.Crashed)
	boot(good, &s.Good, &s.GoodCrashed)
	boot(bad, &s.Bad, &s.BadCrashed)
	p.Log = append(p.Log, Event{Step: step, Boots: p.Boots - before, Plan: p.plan})
	p.plan = nil
	return s, nil
}

// Outcome of one simulated bisect.
type Outcome int

const (
	Right  Outcome = iota // the culprit named
	Wrong                 // another commit named
	NoName                // no single commit named (range, does not reproduce)
)

// Tally counts outcomes and boots over many bisects.
type Tally struct {
	Trials, Right, Wrong, NoName, Boots int
	EndBoots                            int
	// Confidence sums the confidence the bisects printed when they named
	// a commit.
	Confidence float64
	// Named holds every named commit's printed confidence and whether it
	// was right (a reliability table's input).
	Named []Named
}

// Named is one named culprit: the confidence printed with it and
// whether it was the simulated culprit.
type Named struct {
	Confidence float64
	Right      bool
}

// Simulate tallies trials bisects of n commits, each with a fresh Prober
// like p: trial i draws its boots from PCG(i, stream) and its culprit
// from them first, uniform over 1..n.
func Simulate(trials, n int, stream uint64, p Prober, opts bisect.Options) (*Tally, error) {
	var ty Tally
	for i := 0; i < trials; i++ {
		rng := rand.New(rand.NewPCG(uint64(i), stream))
		trial := p
		trial.Rng, trial.Culprit = rng, 1+rng.IntN(n)
		if err := ty.Run(&trial, n, opts); err != nil {
			return nil, err
		}
	}
	return &ty, nil
}

// Run bisects one simulated range with opts and adds the outcome.
func (t *Tally) Run(p *Prober, n int, opts bisect.Options) error {
	res, err := bisect.Run(context.Background(), p, Commits(n), opts, nil, nil)
	if err != nil && res == nil {
		return err
	}
	t.Trials++
	t.Boots += p.Boots
	for _, s := range res.Steps {
		if s.Index == -1 {
			t.EndBoots += len(s.GoodSamples) + len(s.BadSamples) + s.GoodCrashes + s.BadCrashes
		}
	}
	switch {
	case res.Culprit == "":
		t.NoName++
	case p.Culprit > 0 && res.Culprit == fmt.Sprintf("c%d", p.Culprit):
		t.Right++
		t.Confidence += res.Confidence
		t.Named = append(t.Named, Named{res.Confidence, true})
	default:
		t.Wrong++
		t.Confidence += res.Confidence
		t.Named = append(t.Named, Named{res.Confidence, false})
	}
	return nil
}

func (t *Tally) rate(k int) float64 { return float64(k) / float64(max(1, t.Trials)) }

// RightRate, WrongRate, NoNameRate and MeanBoots summarise the tally.
func (t *Tally) RightRate() float64  { return t.rate(t.Right) }
func (t *Tally) WrongRate() float64  { return t.rate(t.Wrong) }
func (t *Tally) NoNameRate() float64 { return t.rate(t.NoName) }
func (t *Tally) MeanBoots() float64  { return t.rate(t.Boots) }

// MeanConfidence is the mean confidence printed with a named commit.
func (t *Tally) MeanConfidence() float64 {
	return t.Confidence / float64(max(1, t.Right+t.Wrong))
}
