package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/kregress/kregress/internal/stats"
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
//   - its medians lie seenSpreads robust spreads apart.
//
// A seen regression makes the whole comparison UNJUDGED (exit 9 under a
// gate), so that a change seen in every boot is never passed for want of
// boots; a seen improvement is named, not gated. kregress-calibrate has
// the rows: how often a null comparison is made UNJUDGED by these rules,
// and how often a real change in a secondary metric is.

// markSeen sets Seen on every metric of one candidate's metrics ms that
// was not called (unjudged, or not significant in its family) but looks
// changed all the same. A change within the metric's noise floor
// (Options.NoiseFloorPct) is not seen: the floor says changes that small
// are not this metric's verdict, and judge already excuses a significant
// one of that size, so weaker evidence of it must not hold a night back.
func markSeen(ms []Metric, o Options) {
	for j := range ms {
		ms[j].Seen = ""
		if v := ms[j].Verdict; (v == verdict.Unjudged || v == verdict.NoChange) && !withinFloor(&ms[j], o) {
			ms[j].Seen = seen(&ms[j])
		}
	}
}

// withinFloor: m's change is a finite percentage smaller than its noise
// floor.
func withinFloor(m *Metric, o Options) bool {
	floor, ok := o.NoiseFloorPct[m.Name]
	return ok && !math.IsInf(m.DeltaPct, 0) && !math.IsNaN(m.DeltaPct) && math.Abs(m.DeltaPct) < floor
}

// seen is why metric m, not called, looks changed ("" when it does not).
func seen(m *Metric) string {
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
	case robustShift(m.Base.Values, m.Cand.Values) >= seenSpreads && crossers(m.Base.Values, m.Cand.Values) <= 1:
		return fmt.Sprintf("medians %g robust spreads apart or more", float64(seenSpreads))
	}
	return ""
}

// seenSpreads is how many robust spreads between boots two medians must
// lie apart for a change to be seen. A boot that is an outlier breaks the
// boots' separation but hardly moves a median or a median absolute
// deviation; under no change, medians of 5 boots lie this far apart far
// less than once in a hundred comparisons (kregress-calibrate's null rows).
const seenSpreads = 4

// robustShift is how far apart the medians of a and b lie, in robust
// spreads (the median absolute deviation of every value from its own
// sample's median, times 1.4826: the standard deviation for normal
// data), on a log scale when every value is positive (the spread of
// timings grows with their size); 0 when the spread is 0 or either side
// has fewer than 3 values.
func robustShift(a, b []float64) float64 {
	if len(a) < 3 || len(b) < 3 {
		return 0
	}
	tr := func(v float64) float64 { return v }
	if slices.Min(a) > 0 && slices.Min(b) > 0 {
		tr = math.Log
	}
	x, y := make([]float64, len(a)), make([]float64, len(b))
	for i, v := range a {
		x[i] = tr(v)
	}
	for i, v := range b {
		y[i] = tr(v)
	}
	mx, my := stats.Median(x), stats.Median(y)
	dev := append(deviations(x, mx), deviations(y, my)...)
	spread := 1.4826 * stats.Median(dev)
	if spread == 0 {
		return 0
	}
	return math.Abs(my-mx) / spread
}

// crossers counts the boots of a and b on the other side's side of the
// midpoint between their medians. The spread rule is for a shift that
// one outlier keeps from separating the boots; a metric that takes one
// of a few values (an irqs-off worst of one or two of QEMU's turns, a
// median that follows which CPU a hog landed on) can have a spread of
// almost 0 on one side while several boots of the other side sit at its
// value: that is a mix of the same values, not a shift.
func crossers(a, b []float64) int {
	ma, mb := stats.Median(a), stats.Median(b)
	mid := (ma + mb) / 2
	n := 0
	for _, v := range a {
		if (v-mid)*(mb-ma) > 0 {
			n++
		}
	}
	for _, v := range b {
		if (v-mid)*(ma-mb) > 0 {
			n++
		}
	}
	return n
}

// deviations are v's absolute deviations from its median m, but for the
// one value an odd count has at its median: its zero says nothing of the
// spread, and with 5 boots a side two such zeros of 10 pull the median
// deviation down by a fifth.
func deviations(v []float64, m float64) []float64 {
	var out []float64
	skipped := len(v)%2 == 0
	for _, x := range v {
		if !skipped && x == m {
			skipped = true
			continue
		}
		out = append(out, math.Abs(x-m))
	}
	return out
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
	// seenRegression: a metric not called (unjudged, or not significant
	// in its family) but seen to regress: the comparison is UNJUDGED too.
	seenRegression
	// notRuledOut: a metric not called whose boots leave a regression
	// of the comparison's margin possible (Metric.NotRuledOut): the
	// comparison is UNJUDGED too.
	notRuledOut
	// notJudged: a secondary metric unjudged and not seen to regress:
	// named, not gated.
	notJudged
	// loadHeld: a timing metric that would have regressed, held because
	// the sides' host loads differ (Metric.LoadHeld): UNJUDGED.
	loadHeld
)

// unjudgedMetric is one candidate's unjudged metric.
type unjudgedMetric struct {
	Variant string
	*Metric
	Kind unjudgedKind
	load *LoadMismatch // the candidate's, for a loadHeld metric
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
			seenWorse := m.Seen != "" && leansWorse
			if m.Verdict != verdict.Unjudged && !seenWorse && !m.NotRuledOut {
				continue
			}
			u := unjudgedMetric{Variant: v.Name, Metric: m, Kind: notJudged, load: d.LoadMismatch[v.Name]}
			switch {
			case m.LoadHeld:
				u.Kind = loadHeld
			case m.Verdict == verdict.Unjudged && m.deciding(anyPrimary):
				u.Kind = decidingUnjudged
			case seenWorse:
				u.Kind = seenRegression
			case m.NotRuledOut:
				u.Kind = notRuledOut
			}
			out = append(out, u)
		}
	}
	return out
}

// Unjudged lists what makes the comparison UNJUDGED (verdict.Unjudged,
// exit 9 under a gate), with why: a deciding metric (a primary one, or
// any when none is primary) that was unjudged, any metric not called but
// seen to regress (Metric.Seen), and any whose boots do not rule out a
// regression of the comparison's margin (Metric.NotRuledOut).
func (d *Diff) Unjudged() []string {
	var out []string
	for _, u := range d.unjudgedMetrics() {
		if u.Kind != notJudged {
			out = append(out, u.why(d.Options))
		}
	}
	return out
}

// why says why u makes the comparison UNJUDGED, and what would judge it.
func (u unjudgedMetric) why(o Options) string {
	m := u.Metric
	switch u.Kind {
	case loadHeld:
		return loadHeldWhy(u.Variant, m, u.load)
	case notRuledOut:
		more := "more boots would flag it rather than rule it out"
		if need := bootsToRuleOut(m, o); need > 0 {
			more = fmt.Sprintf("about %d per side would", need)
		}
		return fmt.Sprintf("%s: %s %s, not ruled out at n=%d+%d: it could be %s (a pass needs its boots to exclude %s; %s)",
			u.Variant, m.Name, num.Delta(m.DeltaPct), m.Base.N, m.Cand.N, WorstText(m), marginText(m, o), more)
	case decidingUnjudged:
		return fmt.Sprintf(HeadlineClauses[clauseDeciding].Format,
			u.Variant, m.Name, m.Base.N, m.Cand.N, m.Family, MinMannWhitneyP(m.Base.N, m.Cand.N)*float64(m.Family), m.Alpha, NeededReps(m.Family, m.Alpha))
	}
	if m.Verdict == verdict.NoChange {
		return fmt.Sprintf("%s: %s %s seen, not proven (%s; q=%.3f >= alpha %.3g in a family of %d at n=%d+%d; more boots would decide it)",
			u.Variant, m.Name, num.Delta(m.DeltaPct), m.Seen, m.Q, m.Alpha, m.Family, m.Base.N, m.Cand.N)
	}
	return fmt.Sprintf("%s: %s %s seen, not judged (%s; n=%d+%d in a family of %d cannot reach q < %.3g; %d per side would)",
		u.Variant, m.Name, num.Delta(m.DeltaPct), m.Seen, m.Base.N, m.Cand.N, m.Family, m.Alpha, NeededReps(m.Family, m.Alpha))
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
	switch {
	case u.Seen != "":
		item += " (" + u.Seen + ")"
	case u.WatchedOpen:
		item += " (watched, could be " + WorstText(u.Metric) + ")"
	}
	if len(d.Variants) > 2 {
		item = u.Variant + ": " + item
	}
	return item
}

// Unsure reports whether more boots may decide m: its boots do not rule
// out a regression of the margin (NotRuledOut), or it is not significant
// and was seen to change or its q lies in the grey zone [alpha,
// greyUpper) (greyUpper >= 1: any q), or it is unjudged and either decides
// the verdict (anyPrimary: whether the comparison has a primary metric)
// or was seen to change.
// The nightly's looks and run's measure again while any metric is.
func (m *Metric) Unsure(greyUpper float64, anyPrimary bool) bool {
	// More boots at tonight's load cannot change the baseline's.
	if m.LoadHeld {
		return false
	}
	if m.NotRuledOut {
		return true
	}
	switch m.Verdict {
	case verdict.NoChange:
		return m.Seen != "" || m.Q >= m.Alpha && (m.Q < greyUpper || greyUpper >= 1)
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
		if u.Kind == loadHeld {
			continue // boots cannot judge it; an interleaved session can
		}
		if u.Kind == notRuledOut {
			need = max(need, bootsToRuleOut(u.Metric, d.Options))
			continue
		}
		if u.Verdict == verdict.NoChange {
			need = max(need, 2*max(u.Base.N, u.Cand.N))
		} else {
			need = max(need, NeededReps(u.Family, u.Alpha))
		}
	}
	return need
}
