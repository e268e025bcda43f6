package main

// The metric-check rows: a nightly's bisect is driven by one regressed
// metric and judges the others at its culprit from the same boots
// (bisect.CheckMetric). Each trial bisects the bisect row's range (16
// commits, the driver 10% from the culprit, CV 0.05) with the product's
// search; when it names the right culprit, another metric of the same
// boots, with its own noise, is judged there: one that moved at the
// culprit must not be called DISAGREES, one that moved at another commit
// must not be called agrees. The real rows draw the other metric's noise
// from the rstat lock's p99 hold time of real boots (a tail percentile,
// whose evidence often reaches no bound).

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/bisect/bisectsim"
)

// otherMetric is the second metric of a simulated range: Change higher
// (relative) from commit At on, each boot's noise 1 + CV N(0,1) or drawn
// from Resample.
type otherMetric struct {
	At       int
	Change   float64
	CV       float64
	Resample []float64
}

func (m otherMetric) boots(rng *rand.Rand, commit string, n int) []float64 {
	var i int
	if _, err := fmt.Sscanf(commit, "c%d", &i); err != nil {
		must(fmt.Errorf("metric check: not a simulated commit: %q", commit))
	}
	v := 100.0
	if i >= m.At {
		v *= 1 + m.Change
	}
	xs := make([]float64, n)
	for k := range xs {
		f := 1 + m.CV*rng.NormFloat64()
		if len(m.Resample) > 0 {
			f = m.Resample[rng.IntN(len(m.Resample))]
		}
		xs[k] = v * f
	}
	return xs
}

// figures reads every look of the bisect again in the other metric: as
// many boots of each point as the look had (the endpoints' step's own
// boots are its first midpoint's).
func (m otherMetric) figures(rng *rand.Rand, commits int) bisect.LookFigures {
	bad := fmt.Sprintf("c%d", commits)
	return func(s bisect.Step, i int) (bisect.Look, bool, error) {
		l := s.Looks[i]
		point := s.Commit
		if s.Index == -1 {
			point = s.Probe
		}
		out := bisect.Look{Good: m.boots(rng, "c0", len(l.Good)), Bad: m.boots(rng, bad, len(l.Bad))}
		if len(l.Step) > 0 {
			out.Step = m.boots(rng, point, len(l.Step))
		}
		return out, true, nil
	}
}

// checkTally counts a scenario's checks among the bisects that named the
// right culprit.
type checkTally struct {
	right, trials int
	by            map[bisect.Agreement]int
}

func (t checkTally) share(a bisect.Agreement) string { return pct(t.by[a], max(1, t.right)) }

func (t checkTally) rate(a bisect.Agreement) float64 {
	return float64(t.by[a]) / float64(max(1, t.right))
}

func (t checkTally) figure() string {
	return fmt.Sprintf("of the %d of %d bisects that named the right culprit: agrees %s, cannot tell %s, DISAGREES %s",
		t.right, t.trials, t.share(bisect.Agrees), t.share(bisect.CannotTell), t.share(bisect.Disagrees))
}

// metricCheckTrials bisects trials ranges and judges other (its At drawn
// by at from the culprit) at every right culprit.
func metricCheckTrials(trials int, seed int64, stream uint64, other otherMetric, at func(rng *rand.Rand, culprit int) int) (checkTally, error) {
	t := checkTally{trials: trials, by: map[bisect.Agreement]int{}}
	for i := 0; i < trials; i++ {
		rng := rand.New(rand.NewPCG(uint64(seed), stream<<32|uint64(i)))
		culprit := 1 + rng.IntN(bisectCommits)
		p := &bisectsim.Prober{Rng: rng, Culprit: culprit, Base: 100, Change: 0.1, CV: 0.05}
		res, err := bisect.Run(context.Background(), p, bisectsim.Commits(bisectCommits), bisect.Options{}, nil, nil)
		if err != nil && res == nil {
			return t, err
		}
		if res.Culprit != fmt.Sprintf("c%d", culprit) {
			continue
		}
		t.right++
		o := other
		o.At = at(rng, culprit)
		mc, err := bisect.CheckMetric(&bisect.Spec{Names: bisectsim.Commits(bisectCommits)}, res, "other", o.figures(rng, bisectCommits))
		if err != nil {
			return t, err
		}
		t.by[mc.Verdict()]++
	}
	return t, nil
}

// checkBound is the check's stated error rate: the search's own bound,
// 0.65 of the default alpha 0.05 (bisect's estMargin).
const checkBound = 0.65 * 0.05

// sameCommit and elsewhere place the other metric's change: at the
// culprit, or at another commit of the range drawn uniformly.
func sameCommit(_ *rand.Rand, culprit int) int { return culprit }

func elsewhere(rng *rand.Rand, culprit int) int {
	at := 1 + rng.IntN(bisectCommits-1)
	if at >= culprit {
		at++
	}
	return at
}

func bisectMetricCheckRows(trials int, seed int64) []Row {
	const base = "bisect 16 commits, 10% step, CV 0.05; another metric of the same boots judged at the right culprit"
	cell := realCellOf("rstat-relock", "stock")
	const tail = "rstat_lock_hold_p99_us"
	fs, spread, err := realFactors(cell, tail)
	if err != nil {
		return []Row{{Scenario: base + ", real " + tail, Figure: "error: " + err.Error(), Goal: "runs"}}
	}
	real := fmt.Sprintf("real boots resampled (rstat-relock/stock %s: %d boots, robust spread %.3f)", tail, len(fs), spread)
	step := math.Expm1(gaussSpreads * spread)
	var rows []Row
	for _, c := range []struct {
		what      string
		other     otherMetric
		moved     bool
		streamOff uint64
	}{
		{"its own 10% step at the culprit, CV 0.05", otherMetric{Change: 0.1, CV: 0.05}, true, 0},
		{"its own 10% step at another commit, CV 0.05", otherMetric{Change: 0.1, CV: 0.05}, false, 1},
		{fmt.Sprintf("its own %.0f%% step (2 spreads) at the culprit, %s", 100*step, real), otherMetric{Change: step, Resample: fs}, true, 2},
		{fmt.Sprintf("its own %.0f%% step (2 spreads) at another commit, %s", 100*step, real), otherMetric{Change: step, Resample: fs}, false, 3},
	} {
		s := base + ": " + c.what
		at := elsewhere
		if c.moved {
			at = sameCommit
		}
		t, err := metricCheckTrials(trials, seed, 60+c.streamOff, c.other, at)
		if err != nil {
			rows = append(rows, Row{Scenario: s, Figure: "error: " + err.Error(), Goal: "runs"})
			continue
		}
		if c.moved {
			rows = append(rows, Row{Scenario: s, Figure: t.figure(), Goal: "DISAGREES <= 3.25% (0.65 alpha, the search's bound)", Met: t.rate(bisect.Disagrees) <= checkBound})
		} else {
			rows = append(rows, Row{Scenario: s, Figure: t.figure(), Goal: "agrees <= 3.25% (0.65 alpha, the search's bound)", Met: t.rate(bisect.Agrees) <= checkBound})
		}
	}
	return rows
}
