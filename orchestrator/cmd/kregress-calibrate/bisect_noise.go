package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/bisect/bisectsim"
	"github.com/kregress/kregress/results/bisectreport"
)

// The heavy-tail and two-change rows bisect the same 16-commit range as
// the bisect rows (10% step, the culprit drawn uniformly) on noise that
// is not the harness's normal: 5% of boots at 3x their figure (a cell
// the host starved), lognormal noise of sigma 0.3, and two changes of
// 10% each in one range. The reliability rows read every bisect these
// rows and the bisect rows ran: the confidence each named culprit was
// printed with, against whether it was right.

// named is one named culprit: the confidence printed and whether it was
// right (for two changes: either of them).
type named struct {
	confidence float64
	right      bool
}

// calls records every culprit the bisect scenarios named, by scenario,
// for the reliability rows.
var calls = struct {
	sync.Mutex
	by map[string][]named
}{by: map[string][]named{}}

func record(scenario string, res *bisect.Result, right bool) {
	if res == nil || res.Culprit == "" {
		return
	}
	calls.Lock()
	defer calls.Unlock()
	calls.by[scenario] = append(calls.by[scenario], named{res.Confidence, right})
}

// recordTally records a bisectsim tally's named culprits.
func recordTally(scenario string, ty *bisectsim.Tally) {
	calls.Lock()
	defer calls.Unlock()
	for _, n := range ty.Named {
		calls.by[scenario] = append(calls.by[scenario], named{n.Confidence, n.Right})
	}
}

// noiseCase is one row's simulated range.
type noiseCase struct {
	outliers, logSigma float64
	two                bool
	// resample, when set, are the boots' noise factors (real boots,
	// bisectsim.Prober.Resample); step, when not 0, replaces the 10%
	// change.
	resample []float64
	step     float64
	// confirm: a named culprit is confirmed by revert as kregress bisect
	// does (bisect.Confirm); outlierZ, when not 0, replaces the bisect's
	// outlier screen (bisect.Options.OutlierZ; +Inf: none).
	confirm  bool
	outlierZ float64
	// added, when not 0, replaces the step by a fixed amount added from
	// the culprit on, added times the base figure, with relative noise
	// addedCV of its own (bisectsim.Prober.Added).
	added, addedCV float64
}

// noiseTally is the outcome of a scenario's bisects.
type noiseTally struct {
	trials, right, wrong, say, sayNamed, sayUnnamed, boots int
	ranged                                                 int // ended as a range or "does not reproduce"
	// Of the named culprits that are one of the changes, by the revert's
	// outcome (confirm only), and the boots the reverts took.
	confirmed, refuted, revertBoots int
}

func (t *noiseTally) rate(k int) float64 { return float64(k) / float64(max(1, t.trials)) }

// noiseTrials runs the case's bisects; scenario names them for the
// reliability rows ("": not recorded there, as a mutation's bisects or
// ones another row recorded already).
func noiseTrials(scenario string, c noiseCase, trials int, seed int64, stream uint64) (*noiseTally, error) {
	var t noiseTally
	for i := 0; i < trials; i++ {
		rng := rand.New(rand.NewPCG(uint64(seed), stream<<32|uint64(i)))
		p := &bisectsim.Prober{Rng: rng, Base: 100, Change: 0.1, CV: 0.05, LogSigma: c.logSigma, Resample: c.resample}
		if c.step != 0 {
			p.Change = c.step
		}
		if c.added != 0 {
			p.Change, p.Added, p.AddedCV = 0, c.added*p.Base, c.addedCV
		}
		if c.outliers > 0 {
			p.OutlierRate, p.OutlierFactor = c.outliers, 3
		}
		if c.two {
			p.Culprit = 1 + rng.IntN(bisectCommits-1)
			p.Culprit2 = p.Culprit + 1 + rng.IntN(bisectCommits-p.Culprit)
		} else {
			p.Culprit = 1 + rng.IntN(bisectCommits)
		}
		commits, opts := bisectsim.Commits(bisectCommits), bisect.Options{OutlierZ: c.outlierZ}
		res, err := bisect.Run(context.Background(), p, commits, opts, nil, nil)
		if err != nil && res == nil {
			return nil, err
		}
		if c.confirm && res.Culprit != "" {
			before := p.Boots
			if err := bisect.Confirm(context.Background(), p, bisectsim.Revert, &bisect.Spec{Names: commits}, res, opts); err != nil {
				return nil, err
			}
			t.revertBoots += p.Boots - before
		}
		t.trials++
		t.boots += p.Boots
		first, second := fmt.Sprintf("c%d", p.Culprit), fmt.Sprintf("c%d", p.Culprit2)
		ok := res.Culprit == first || (c.two && res.Culprit == second)
		switch {
		case res.Culprit == "":
			t.ranged++
		case ok:
			t.right++
			if cf := res.Confirmation; cf != nil {
				switch cf.Outcome {
				case bisectreport.Confirmed:
					t.confirmed++
				case bisectreport.Refuted:
					t.refuted++
				}
			}
		default:
			t.wrong++
		}
		if scenario != "" {
			record(scenario, res, ok)
		}
		if m := res.MoreChanges; m != nil && len(m.Remaining) > 0 {
			t.say++
			if ok {
				t.sayNamed++
			}
			if res.Culprit == "" {
				t.sayUnnamed++
			}
		}
	}
	return &t, nil
}

func bisectNoiseRows(trials int, seed int64) []Row {
	var rows []Row
	const base = "bisect 16 commits, 10% step"
	for _, c := range []struct {
		name   string
		c      noiseCase
		stream uint64
	}{
		{"CV 0.05, 5% of boots at 3x", outlierCase, outlierStream},
		{"lognormal noise sigma 0.3", noiseCase{logSigma: 0.3}, 12},
	} {
		s := base + ", " + c.name
		t, err := noiseTrials(s, c.c, trials, seed, c.stream)
		if err != nil {
			return append(rows, Row{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"})
		}
		if c.c.outliers > 0 {
			rows = append(rows, strictRow(s, t, trials, seed))
		} else {
			rows = append(rows, Row{Scenario: s, Figure: t.figure(), Goal: "wrong <= 2%", Met: t.rate(t.wrong) <= 0.02})
		}
	}
	rows = append(rows, addedDelayRow(trials, seed))
	return rows
}

// addedDelayRow: a change that adds a fixed delay to a noisy figure, as
// the e2e fixture's udelay(200) does to a lock held about 4 us: 54 times
// the figure, on lognormal noise of sigma 0.3, the delay itself 0.3%
// noisy - the changed kernel's logarithms about 100 times quieter than
// the unchanged one's. The change is 13 spreads of the noisier
// endpoint: only a commit left unsettled can miss it, so the goal is
// the right commit nearly always.
func addedDelayRow(trials int, seed int64) Row {
	s := "bisect 16 commits, a fixed delay 54x the figure added (lognormal sigma 0.3, the delay 0.3% noisy: the endpoints' spreads 100x apart)"
	t, err := noiseTrials(s, noiseCase{logSigma: 0.3, added: 54, addedCV: 0.003}, trials, seed, addedStream)
	if err != nil {
		return Row{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"}
	}
	return Row{Scenario: s, Figure: t.figure(), Goal: "right >= 98%, wrong <= 2%", Met: t.rate(t.right) >= 0.98 && t.rate(t.wrong) <= 0.02}
}

// outlierCase and outlierStream are the heavy-tail row's outlier boots,
// twoStream the two-change row's: their mutation rows run them again.
var outlierCase = noiseCase{outliers: 0.05}

const outlierStream, twoStream, addedStream = 11, 13, 15

// figure is a one-change row's figure.
func (t *noiseTally) figure() string {
	return fmt.Sprintf("right %s, wrong %s, no commit named %s; %.1f boots on average", pct(t.right, t.trials), pct(t.wrong, t.trials), pct(t.ranged, t.trials), float64(t.boots)/float64(t.trials))
}

// strictRow is a one-change row with the outlier row's goals: the right
// commit, rarely a wrong one, in at most twice the Gaussian row's boots.
func strictRow(s string, t *noiseTally, trials int, seed int64) Row {
	g := 2 * gaussBoots(trials, seed)
	return Row{Scenario: s, Figure: t.figure(),
		Goal: fmt.Sprintf("right >= 90%%, wrong <= 2%%, boots <= 2x the CV 0.05 row's (%.0f)", g),
		Met:  t.rate(t.right) >= 0.90 && t.rate(t.wrong) <= 0.02 && float64(t.boots)/float64(t.trials) <= g}
}

// gaussBoots is the mean boots of the bisect row on CV 0.05 normal
// noise, run once (the same trials and seed as the bisect rows).
var gaussBootsOnce = struct {
	sync.Once
	v float64
}{}

func gaussBoots(trials int, seed int64) float64 {
	gaussBootsOnce.Do(func() {
		ty, err := bisectTally(bisectCase{change: 0.1}, trials, seed, 1)
		if err == nil {
			gaussBootsOnce.v = ty.MeanBoots()
		}
	})
	return gaussBootsOnce.v
}

func bisectTwoRows(trials int, seed int64) []Row {
	s := "bisect 16 commits, two 10% steps in the range, CV 0.05"
	t, err := noiseTrials(s, noiseCase{two: true}, trials, seed, twoStream)
	if err != nil {
		return []Row{{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"}}
	}
	return []Row{
		{Scenario: s, Figure: fmt.Sprintf("one of the two named %s, a third commit %s, no commit named %s", pct(t.right, t.trials), pct(t.wrong, t.trials), pct(t.ranged, t.trials)),
			Goal: "a third commit <= 2%", Met: t.rate(t.wrong) <= 0.02},
		{Scenario: s + ": the answer", Figure: fmt.Sprintf("says more than one change and gives the range(s) still to bisect %s (with one of the two named %s); %.1f boots on average", pct(t.say, t.trials), pct(t.sayNamed, t.trials), float64(t.boots)/float64(t.trials)),
			Goal: "figure (no goal)", Met: true},
		{Scenario: s + ": no commit named", Figure: fmt.Sprintf("says more than one change and gives the ranges in %s of them", pct(t.sayUnnamed, max(1, t.ranged))),
			Goal: ">= 90%", Met: float64(t.sayUnnamed) >= 0.9*float64(t.ranged)},
	}
}

// reliabilityBins are the reliability table's bins of stated
// confidence, each from its lower edge.
var reliabilityBins = []float64{0, 0.5, 0.8, 0.9, 0.95, 0.99}

// bisectReliabilityRows is the reliability table: over every bisect the
// bisect scenarios ran (run here when none has, those on real boots too), the culprits named at
// each stated confidence (binned), and the share of them that were
// right. A bin meets its goal when that share is at least the mean
// confidence stated in it, less two binomial standard errors.
func bisectReliabilityRows(trials int, seed int64) []Row {
	calls.Lock()
	empty := len(calls.by) == 0
	calls.Unlock()
	if empty {
		bisectRows(trials, seed)
		bisectNoiseRows(trials, seed)
		bisectTwoRows(trials, seed)
		bisectRealRows(trials, seed)
		bisectRealTwoRows(trials, seed)
	}
	calls.Lock()
	defer calls.Unlock()
	type bin struct {
		n, right int
		stated   float64
	}
	bins := make([]bin, len(reliabilityBins))
	for _, ns := range calls.by {
		for _, c := range ns {
			b := sort.SearchFloat64s(reliabilityBins, c.confidence+1e-12) - 1
			bins[b].n++
			bins[b].stated += c.confidence
			if c.right {
				bins[b].right++
			}
		}
	}
	var rows []Row
	for i, b := range bins {
		if b.n == 0 {
			continue
		}
		hi := "1"
		if i+1 < len(reliabilityBins) {
			hi = fmt.Sprintf("%g", reliabilityBins[i+1])
		}
		c := b.stated / float64(b.n)
		se := math.Sqrt(c * (1 - c) / float64(b.n))
		rows = append(rows, Row{Scenario: fmt.Sprintf("bisect reliability: culprits named at confidence [%g, %s), every bisect scenario (%d)", reliabilityBins[i], hi, len(calls.by)),
			Figure: fmt.Sprintf("%d named at %.3f on average, right %s", b.n, c, pct(b.right, b.n)),
			Goal:   fmt.Sprintf("right >= the stated %.1f%% (less 2 SE: %.1f%%)", 100*c, 100*(c-2*se)),
			Met:    float64(b.right)/float64(b.n) >= c-2*se})
	}
	if len(rows) == 0 {
		rows = append(rows, Row{Scenario: "bisect reliability", Figure: "no culprit named", Goal: "some named", Met: false})
	}
	return rows
}
