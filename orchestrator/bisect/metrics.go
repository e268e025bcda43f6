package bisect

import (
	"context"
	"fmt"

	"github.com/kregress/kregress/results"
)

// A night often finds several metrics of one variant regressed over the
// same commits (reads/s and the read latencies move together): one
// bisect searches them, driven by one metric, and every boot it made
// measured all of them. CheckMetrics judges the others at the culprit
// from those same boots (each look's stored run, read again for the
// metric): a metric agrees when the culprit is like bad and its parent
// like good in it too. A metric that disagrees is reported, never
// dropped: its change is elsewhere, or there is more than one.

// MetricCheck is one other metric judged at the culprit.
type MetricCheck struct {
	Metric string `json:"metric"`
	// Agrees: the culprit is like bad, its parent like good, in this
	// metric as well.
	Agrees bool   `json:"agrees"`
	Why    string `json:"why"`
}

// String is the check in one line.
func (m MetricCheck) String() string {
	v := "agrees"
	if !m.Agrees {
		v = "DISAGREES"
	}
	return fmt.Sprintf("%s %s: %s", m.Metric, v, m.Why)
}

// CheckMetrics judges each of metrics at res's culprit (the merged
// branch's when the search descended into one) from the stored runs of
// the bisect's looks; nil when no culprit was named.
func CheckMetrics(ctx context.Context, store results.Store, res *Result, opts Options, metrics []string) ([]MetricCheck, error) {
	if res == nil || res.Culprit == "" {
		return nil, nil
	}
	opts = opts.withDefaults()
	steps := res.Steps
	if m := res.Merge; m != nil && m.Culprit != "" {
		steps = m.Steps
		opts.Range = len(m.Branch) - 1
	}
	runs := map[int64][]*results.Result{}
	var out []MetricCheck
	for _, metric := range metrics {
		re, err := restate(ctx, store, steps, metric, runs)
		if err != nil {
			return out, fmt.Errorf("bisect: %s at the culprit: %w", metric, err)
		}
		out = append(out, judgeAt(re, res.Culprit, metric, opts))
	}
	return out, nil
}

// restate is steps with every look's figures read again, for metric,
// from the look's stored run (runs caches them).
func restate(ctx context.Context, store results.Store, steps []Step, metric string, runs map[int64][]*results.Result) ([]Step, error) {
	out := make([]Step, len(steps))
	for k, s := range steps {
		s.Looks = append([]Look(nil), s.Looks...)
		for i := range s.Looks {
			l := &s.Looks[i]
			l.Step, l.Good, l.Bad = nil, nil, nil
			if i >= len(s.RunIDs) || s.RunIDs[i] == 0 {
				continue
			}
			id := s.RunIDs[i]
			rs, ok := runs[id]
			if !ok {
				var err error
				if rs, err = store.Results(ctx, id); err != nil {
					return nil, err
				}
				runs[id] = rs
			}
			smp, err := tally(rs, metric, false, nil)
			if err != nil {
				// A look whose endpoint failed says nothing of this
				// metric; the driver's judged it already.
				continue
			}
			l.Step, l.Good, l.Bad = smp.Step, smp.Good, smp.Bad
		}
		out[k] = s
	}
	return out, nil
}

// judgeAt tests the culprit's step and its parent's (when measured) in
// the restated steps.
func judgeAt(steps []Step, culprit, metric string, opts Options) MetricCheck {
	var end *Step
	kc, idx := -1, -1
	for k := range steps {
		if steps[k].Index == -1 {
			end = &steps[k]
		}
		if steps[k].Commit == culprit && steps[k].Index >= 0 {
			kc, idx = k, steps[k].Index
		}
	}
	mc := MetricCheck{Metric: metric}
	if end == nil || kc < 0 {
		mc.Why = "the culprit has no looks of its own to judge it from"
		return mc
	}
	e := opts.stepAlpha() * estMargin
	at := sprt(priorFor(steps, kc, end), steps[kc].Looks, e, opts.outlierZ())
	mc.Why = fmt.Sprintf("at the culprit %s", at.String())
	agrees := at.LLR > 0
	if idx > 0 {
		if k := parentEvidence(steps, idx-1); k >= 0 {
			par := sprt(priorFor(steps, k, end), steps[k].Looks, e, opts.outlierZ())
			if steps[k].Index == idx-1 {
				mc.Why += fmt.Sprintf("; at its parent %s", par.String())
			} else {
				mc.Why += fmt.Sprintf("; at its parent (the same bzImage as %.12s, booted in its place) %s", steps[k].Commit, par.String())
			}
			agrees = agrees && par.LLR < 0
		}
	}
	mc.Agrees = agrees
	return mc
}

// parentEvidence is the step whose looks stand for the commit at index:
// its own, or, when the search did not boot it because its bzImage is
// the same as a commit it did boot, that commit's. -1 when neither is
// among steps (the parent was never reached: nothing to judge it by).
func parentEvidence(steps []Step, index int) int {
	at := -1
	for k := range steps {
		if steps[k].Index == index {
			at = k
		}
	}
	if at < 0 || len(steps[at].Looks) > 0 || steps[at].Image == "" {
		return at
	}
	for k := range steps {
		if k != at && steps[k].Index >= 0 && steps[k].Image == steps[at].Image && len(steps[k].Looks) > 0 {
			return k
		}
	}
	return at
}
