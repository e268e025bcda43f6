package bisect

import (
	"context"
	"fmt"
	"slices"

	"github.com/kregress/kregress/results"
)

// A night often finds several metrics of one variant regressed over the
// same commits (reads/s and the read latencies move together): one
// bisect searches them, driven by one metric, and every boot it made
// measured all of them. CheckMetrics judges the others at the culprit
// from those same boots (each look's stored run, read again for the
// metric) with the search's own rule (posterior.go), as if the bisect
// had been driven by that metric over exactly these looks:
//
//   - agrees: the stopping rule names the culprit's position in this
//     metric too;
//   - DISAGREES: some other position is more likely than the culprit's
//     by the naming threshold for its distance: this metric's change is
//     elsewhere, or there is more than one;
//   - cannot tell: neither (the looks the driver needed were too few for
//     this metric's spread: a tail percentile's, typically).
//
// With the true position at k*, the likelihood ratio of any other
// position over k* stays a martingale whichever commits the driver chose
// to look at, so by the search's own bound (Ville's inequality, summed
// over distances) a metric that moved at the culprit is called
// DISAGREES, and one that moved elsewhere is called agrees, each at most
// about a = 0.65 alpha of the time. kregress-calibrate's metric-check
// rows measure both through CheckMetric. The sign of the culprit's and
// its parent's own step tests is not enough: a noisy tail metric's
// evidence often reaches no bound, and that is "cannot tell".

// Agreement is one other metric's verdict at the culprit.
type Agreement string

const (
	Agrees     Agreement = "agrees"
	Disagrees  Agreement = "DISAGREES"
	CannotTell Agreement = "cannot tell"
)

// MetricCheck is one other metric judged at the culprit.
type MetricCheck struct {
	Metric    string    `json:"metric"`
	Agreement Agreement `json:"agreement,omitempty"`
	// Agrees is Agreement == Agrees (a bisect stored before Agreement
	// existed has only this).
	Agrees bool   `json:"agrees"`
	Why    string `json:"why"`
}

// Verdict is the check's agreement (for a check stored before
// Agreement existed: agrees or DISAGREES, as it was then called).
func (m MetricCheck) Verdict() Agreement {
	switch {
	case m.Agreement != "":
		return m.Agreement
	case m.Agrees:
		return Agrees
	}
	return Disagrees
}

// String is the check in one line.
func (m MetricCheck) String() string {
	return fmt.Sprintf("%s %s: %s", m.Metric, m.Verdict(), m.Why)
}

// LookFigures gives a look of a step in another metric: the step's boots
// and its endpoints' boots of that look. ok false: the look says nothing
// of the metric (its boots failed, or it was not stored).
type LookFigures func(s Step, look int) (l Look, ok bool, err error)

// CheckMetrics judges each of metrics at res's culprit (the merged
// branch's when the search descended into one) from the stored runs of
// the bisect's looks; nil when no culprit was named.
func CheckMetrics(ctx context.Context, store results.Store, spec *Spec, res *Result, metrics []string) ([]MetricCheck, error) {
	if res == nil || res.Culprit == "" {
		return nil, nil
	}
	runs := map[int64][]*results.Result{}
	var out []MetricCheck
	for _, metric := range metrics {
		mc, err := CheckMetric(spec, res, metric, storedLooks(ctx, store, metric, runs))
		if err != nil {
			return out, fmt.Errorf("bisect: %s at the culprit: %w", metric, err)
		}
		out = append(out, mc)
	}
	return out, nil
}

// storedLooks reads a look's figures in metric from its stored run (runs
// caches them).
func storedLooks(ctx context.Context, store results.Store, metric string, runs map[int64][]*results.Result) LookFigures {
	return func(s Step, i int) (Look, bool, error) {
		if i >= len(s.RunIDs) || s.RunIDs[i] == 0 {
			return Look{}, false, nil
		}
		id := s.RunIDs[i]
		rs, ok := runs[id]
		if !ok {
			var err error
			if rs, err = store.Results(ctx, id); err != nil {
				return Look{}, false, err
			}
			runs[id] = rs
		}
		smp, err := tally(rs, metric, false, nil)
		if err != nil {
			// A look whose endpoint failed says nothing of this
			// metric; the driver's judged it already.
			return Look{}, false, nil
		}
		return Look{Step: smp.Step, Good: smp.Good, Bad: smp.Bad}, true, nil
	}
}

// CheckMetric judges metric at res's culprit (the merged branch's when
// the search descended into one) from the bisect's looks, read in that
// metric by figures; spec is the bisect's (its points and alpha). A
// check with no culprit to judge is CannotTell.
func CheckMetric(spec *Spec, res *Result, metric string, figures LookFigures) (MetricCheck, error) {
	if res == nil || res.Culprit == "" {
		return MetricCheck{Metric: metric, Agreement: CannotTell, Why: "no culprit named"}, nil
	}
	names := spec.Names
	steps := res.Steps
	if m := res.Merge; m != nil && m.Culprit != "" {
		names, steps = m.Branch, m.Steps
	}
	opts := Options{Alpha: spec.Alpha, Reps: spec.Reps, Range: len(names) - 1}.withDefaults()
	re, err := restate(steps, figures)
	if err != nil {
		return MetricCheck{}, err
	}
	return judgeAt(re, names, res.Culprit, metric, opts), nil
}

// restate is steps with every look's figures read again by figures.
func restate(steps []Step, figures LookFigures) ([]Step, error) {
	out := make([]Step, len(steps))
	for k, s := range steps {
		s.Looks = append([]Look(nil), s.Looks...)
		for i := range s.Looks {
			l, ok, err := figures(s, i)
			if err != nil {
				return nil, err
			}
			if !ok {
				l = Look{}
			}
			s.Looks[i].Step, s.Looks[i].Good, s.Looks[i].Bad = l.Step, l.Good, l.Bad
		}
		out[k] = s
	}
	return out, nil
}

// judgeAt runs the search's rule over the restated steps of the points
// names (first good, last bad) and places culprit in it.
func judgeAt(steps []Step, names []string, culprit, metric string, opts Options) MetricCheck {
	mc := MetricCheck{Metric: metric, Agreement: CannotTell}
	var end *Step
	for k := range steps {
		if steps[k].Index == -1 {
			end = &steps[k]
		}
	}
	n := len(names) - 1
	at := slices.Index(names, culprit)
	if end == nil || at < 1 {
		mc.Why = "the culprit is not among the bisect's points"
		return mc
	}
	tests, dead, same := evidence(steps, end, opts.stepAlpha()*estMargin, opts.outlierZ())
	llr := map[int]float64{}
	for i, t := range tests {
		llr[i] = t.LLR
	}
	c := positions(n, llr, dead, same)
	cb := c.blockOf(at)
	if cb < 0 {
		mc.Why = "the culprit's position is impossible in the bisect's looks"
		return mc
	}
	b, named := c.best(opts)
	beats := c.ruledOut(cb, opts)
	mc.Why = fmt.Sprintf("a search over the bisect's looks in this metric gives the culprit chance %.3f", c.pBlock(cb))
	switch {
	case named && b == cb:
		mc.Agreement = Agrees
		mc.Why += " and names it"
	case beats >= 0:
		mc.Agreement = Disagrees
		mc.Why += fmt.Sprintf("; %s is more likely by more than the naming threshold", blockName(c.blocks[beats], names))
	default:
		mc.Why += fmt.Sprintf(", %s the most likely at %.3f: the looks reach no bound in this metric (bisect it with --metric %s to know)", blockName(c.blocks[b], names), c.pBlock(b), metric)
	}
	mc.Agrees = mc.Agreement == Agrees
	return mc
}

// blockName names a candidate block by its commits (12 characters each).
func blockName(ks []int, names []string) string {
	if len(ks) == 1 {
		return fmt.Sprintf("%.12s", names[ks[0]])
	}
	return fmt.Sprintf("one of %.12s..%.12s", names[ks[0]], names[ks[len(ks)-1]])
}
