package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// An unjudged metric is one whose sample sizes cannot reach its alpha in
// its family (Reachable): a change of any size stays unproven. That is not
// "no change". Each unjudged metric is looked at once more, alone, with
// rules that ask for no multiplicity correction, and one that looks
// changed by any of them is "seen" (Metric.Seen):
//
//   - its boots do not overlap: every candidate boot beyond every baseline
//     boot (the most extreme ranking the rank test knows);
//   - its own p would pass its alpha were it judged alone;
//   - its change is at least what the run could see in its primary metric
//     (the power line: a change that large in the primary would have been
//     found).
//
// A seen regression makes the whole comparison UNJUDGED (exit 9 under a
// gate), so that a change seen in every boot is never passed for want of
// boots; a seen improvement is named, not gated. kregress-calibrate has
// the rows: how often a null comparison is made UNJUDGED by these rules,
// and how often a real change in a secondary metric is.

// markSeen sets Seen on every unjudged metric of one candidate's metrics
// ms that looks changed.
func markSeen(ms []Metric) {
	primarySee := math.Inf(1)
	for _, m := range ms {
		if m.Primary && !math.IsNaN(m.CouldSeePct) {
			primarySee = math.Min(primarySee, m.CouldSeePct)
		}
	}
	for j := range ms {
		ms[j].Seen = ""
		if ms[j].Verdict == verdict.Unjudged {
			ms[j].Seen = seen(&ms[j], primarySee)
		}
	}
}

// seen is why unjudged metric m looks changed ("" when it does not);
// primarySee is the smallest change the candidate's primary metric could
// see (+Inf when unknown).
func seen(m *Metric, primarySee float64) string {
	side := "below"
	if m.Cand.Median > m.Base.Median {
		side = "above"
	}
	switch {
	case m.Base.Median == m.Cand.Median:
		return ""
	case separated(m.Base.Values, m.Cand.Values):
		return fmt.Sprintf("every boot %s every baseline boot", side)
	case m.P <= m.Alpha:
		return fmt.Sprintf("p=%.3f alone would pass alpha %.3g", m.P, m.Alpha)
	case !math.IsInf(primarySee, 1) && math.Abs(m.DeltaPct) >= primarySee:
		return fmt.Sprintf("beyond the %s the primary metric could see", strings.TrimSuffix(fmt.Sprintf("%.1f", primarySee), ".0")+"%")
	}
	return ""
}

// separated reports whether samples a and b do not overlap: every value
// of one is below every value of the other (two values a side at least).
func separated(a, b []float64) bool {
	if len(a) < 2 || len(b) < 2 {
		return false
	}
	return slices.Max(a) < slices.Min(b) || slices.Max(b) < slices.Min(a)
}

// deciding reports whether m decides the verdict however small its
// change: a primary metric, or any judged one when the comparison has no
// primary metric.
func (m *Metric) deciding(anyPrimary bool) bool {
	return m.Primary || !anyPrimary
}

// anyPrimary reports whether any candidate of d has a judged primary
// metric.
func (d *Diff) anyPrimary() bool {
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			if m.Primary && m.Verdict != verdict.Info {
				return true
			}
		}
	}
	return false
}

// unjudgedKind sorts an unjudged metric by what it does to the verdict.
type unjudgedKind int

const (
	// decidingUnjudged: a deciding metric (a primary one, or any when
	// none is primary) that was unjudged: the comparison is UNJUDGED.
	decidingUnjudged unjudgedKind = iota
	// seenRegression: a secondary metric unjudged but seen to regress:
	// the comparison is UNJUDGED too.
	seenRegression
	// unsureRegression: a metric leaning towards a regression that more
	// boots may decide (Metric.Unsure) and none were taken: not "no
	// change", UNJUDGED.
	unsureRegression
	// notJudged: a secondary metric unjudged and not seen to regress:
	// named, not gated.
	notJudged
)

// unjudgedMetric is one candidate's unjudged metric.
type unjudgedMetric struct {
	Variant string
	*Metric
	Kind      unjudgedKind
	greyUpper float64
}

// unjudgedMetrics lists every unjudged metric of every candidate.
func (d *Diff) unjudgedMetrics() []unjudgedMetric {
	anyPrimary := d.anyPrimary()
	var out []unjudgedMetric
	for _, v := range d.Variants[1:] {
		ms := d.Metrics[v.Name]
		for j := range ms {
			m := &ms[j]
			leansWorse := m.Base.Median != m.Cand.Median && direction(m) == verdict.Regression
			unsure := leansWorse && m.Unsure(d.Options.GreyUpper, anyPrimary)
			if m.Verdict != verdict.Unjudged && !unsure {
				continue
			}
			u := unjudgedMetric{Variant: v.Name, Metric: m, Kind: notJudged, greyUpper: d.Options.GreyUpper}
			switch {
			case m.Verdict == verdict.Unjudged && m.deciding(anyPrimary):
				u.Kind = decidingUnjudged
			case m.Verdict == verdict.Unjudged && m.Seen != "" && leansWorse:
				u.Kind = seenRegression
			case unsure:
				u.Kind = unsureRegression
			}
			out = append(out, u)
		}
	}
	return out
}

// Unjudged lists what makes the comparison UNJUDGED (verdict.Unjudged,
// exit 9 under a gate), with why: a deciding metric (a primary one, or
// any when none is primary) that was unjudged, and any unjudged metric
// seen to regress (Metric.Seen).
func (d *Diff) Unjudged() []string {
	var out []string
	for _, u := range d.unjudgedMetrics() {
		if u.Kind != notJudged {
			out = append(out, u.why())
		}
	}
	return out
}

// why says why u makes the comparison UNJUDGED, and what would judge it.
func (u unjudgedMetric) why() string {
	m := u.Metric
	switch u.Kind {
	case decidingUnjudged:
		return fmt.Sprintf("%s: %s unjudged (n=%d+%d in a family of %d: the smallest possible q is %.3f > alpha %.3g; %d per side would reach it)",
			u.Variant, m.Name, m.Base.N, m.Cand.N, m.Family, MinMannWhitneyP(m.Base.N, m.Cand.N)*float64(m.Family), m.Alpha, NeededReps(m.Family, m.Alpha))
	case seenRegression:
		return fmt.Sprintf("%s: %s %s seen, not judged (%s; n=%d+%d in a family of %d cannot reach q < %.3g; %d per side would)",
			u.Variant, m.Name, num.Delta(m.DeltaPct), m.Seen, m.Base.N, m.Cand.N, m.Family, m.Alpha, NeededReps(m.Family, m.Alpha))
	}
	return fmt.Sprintf("%s: %s %s unsure (q=%.3f, in the grey zone below %.2g at n=%d+%d: more boots would decide it)",
		u.Variant, m.Name, num.Delta(m.DeltaPct), m.Q, u.greyUpper, m.Base.N, m.Cand.N)
}

// NotJudged lists the unjudged metrics Unjudged does not name (secondary
// metrics that did not look changed, or looked improved) as "metric
// +3.1%" ("candidate: metric +3.1%" with several candidates).
func (d *Diff) NotJudged() []string {
	var out []string
	for _, u := range d.unjudgedMetrics() {
		if u.Kind == notJudged {
			out = append(out, d.short(u))
		}
	}
	return out
}

// short names u in a headline: "reads_per_sec -63.6%", with the
// candidate when there are several and why it was seen when it was.
func (d *Diff) short(u unjudgedMetric) string {
	item := fmt.Sprintf("%s %s", u.Name, num.Delta(u.DeltaPct))
	if u.Seen != "" {
		item += " (" + u.Seen + ")"
	}
	if len(d.Variants) > 2 {
		item = u.Variant + ": " + item
	}
	return item
}

// Unsure reports whether more boots may decide m: it is not significant
// and its q lies in the grey zone [alpha, greyUpper) (greyUpper >= 1:
// any q), or it is unjudged and either decides the verdict (anyPrimary:
// whether the comparison has a primary metric) or was seen to change.
// The nightly's looks and run's measure again while any metric is.
func (m *Metric) Unsure(greyUpper float64, anyPrimary bool) bool {
	switch m.Verdict {
	case verdict.NoChange:
		return m.Q >= m.Alpha && (m.Q < greyUpper || greyUpper >= 1)
	case verdict.Unjudged:
		return m.deciding(anyPrimary) || m.Seen != "" || m.Q < greyUpper || greyUpper >= 1
	}
	return false
}

// Unsure lists the candidate/metric pairs of d that more boots may decide
// (Metric.Unsure, in d's grey zone).
func (d *Diff) Unsure() []string {
	anyPrimary := d.anyPrimary()
	var out []string
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			if m.Unsure(d.Options.GreyUpper, anyPrimary) {
				out = append(out, v.Name+"/"+m.Name)
			}
		}
	}
	return out
}

// BootsToJudge is the boots per side that would judge what d could not
// (0 when it judged everything): where a metric was unjudged, the boots
// at which every one could reach its alpha; where one was only unsure,
// twice its boots, as a look of run adds.
func (d *Diff) BootsToJudge() int {
	need := 0
	for _, u := range d.unjudgedMetrics() {
		if u.Verdict == verdict.Unjudged {
			need = max(need, NeededReps(u.Family, u.Alpha))
		} else {
			need = max(need, 2*max(u.Base.N, u.Cand.N))
		}
	}
	return need
}
