package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// A comparison passes only over what its boots rule out. A metric that
// was not called (no significant change, or unjudged) is not thereby
// unchanged: with few or noisy boots a change of half its size again can
// hide in its spread. So every such metric gets a one-sided bound on its
// change in the worse direction (WorstPct: the Hodges-Lehmann interval
// of the shift, from the same Mann-Whitney distribution its p came from,
// at confidence 1 - Options.Miss), and a metric whose bound reaches the
// comparison's margin (Options.RuleOut, or the metric's noise floor when
// larger) is not ruled out: the comparison cannot pass. More boots may
// rule it out (Metric.Unsure), so run and the nightly measure again;
// where none can be added the verdict is UNJUDGED and says which metric
// could be how much worse. A regression of the margin or more then passes
// at most Miss of the time per look (kregress-calibrate's miss rows),
// which is the rule's whole point: a secondary metric's change too small
// for its family to prove is still never passed as "no change".

// DefaultRuleOut is the margin a pass must rule out when none is given:
// a metric 1.5 times worse (50% slower, a third less throughput).
const DefaultRuleOut = 1.5

// DefaultMiss is the share of comparisons in which a metric that truly
// regressed by the margin may still be ruled out, when none is given.
const DefaultMiss = 0.01

// CheckRuleOut refuses a margin no comparison can use: it must exceed 1
// (a ratio: 1.5 is 50% worse), or be +Inf (never rule anything out).
func CheckRuleOut(flag string, r float64) error {
	if math.IsNaN(r) || r <= 1 {
		return fmt.Errorf("%s %g: want a ratio above 1 (1.5: a pass must rule out any metric 1.5 times worse; inf: off)", flag, r)
	}
	return nil
}

// markRuleOut sets WorstPct and NotRuledOut (WatchedOpen for a watched
// metric) on every metric of ms that was not called; m's other fields are
// final.
func markRuleOut(ms []Metric, o Options) {
	for j := range ms {
		m := &ms[j]
		m.WorstPct, m.NotRuledOut, m.WatchedOpen = math.NaN(), false, false
		if v := m.Verdict; v != verdict.NoChange && v != verdict.Unjudged || math.IsInf(o.RuleOut, 1) {
			continue
		}
		var open bool
		m.WorstPct, open = ruleOut(m, o)
		if m.Watched {
			m.WatchedOpen = open
		} else {
			m.NotRuledOut = open
		}
	}
}

// ruleOut is m's worst possible change in % (worsePct's sign) and
// whether it reaches m's margin. Values all positive: the bound is on the
// shift of log values. A value at or below 0 (a count, a share, a
// whole-microsecond figure that can read 0) has no ratio: the bound is
// then on the raw shift, against the margin's share of the baseline's
// median. A side with fewer than 2 values bounds nothing: not ruled out.
func ruleOut(m *Metric, o Options) (float64, bool) {
	base, cand := m.Base.Values, m.Cand.Values
	if len(base) < 2 || len(cand) < 2 {
		return unbounded(m.Direction), true
	}
	if slices.Min(base) > 0 && slices.Min(cand) > 0 {
		shift := worstShift(logs(base), logs(cand), m.Direction, o.Miss)
		if math.IsInf(shift, 1) {
			return unbounded(m.Direction), true
		}
		// The margin and the shift are logarithms computed by different
		// routes: log(3)-log(2) falls a rounding error below log(1.5),
		// and a whole-microsecond metric going 2 -> 3 is exactly 1.5x.
		return worsePct(shift, m.Direction), shift >= marginShift(m, o)*(1-1e-9)
	}
	shift := worstShift(base, cand, m.Direction, o.Miss)
	scale := math.Abs(m.Base.Median)
	if math.IsInf(shift, 1) || scale == 0 && shift > 0 {
		return unbounded(m.Direction), true
	}
	if scale == 0 {
		return 0, false
	}
	pct := shift / scale * 100
	if m.Direction == agentproto.HigherIsBetter {
		pct = -pct
	}
	// The margin as a share of the baseline: RuleOut-1 of it worse for
	// a lower-is-better metric, 1-1/RuleOut for a higher-is-better one
	// (the same ratio), or the noise floor when larger.
	margin := math.Expm1(marginShift(m, o))
	if m.Direction == agentproto.HigherIsBetter {
		margin = -math.Expm1(-marginShift(m, o))
	}
	return pct, shift > 0 && shift/scale >= margin*(1-1e-9)
}

// unbounded is the WorstPct of a metric whose boots bound nothing: +Inf
// for a lower-is-better metric, -Inf for a higher-is-better one.
func unbounded(dir agentproto.Direction) float64 {
	if dir == agentproto.HigherIsBetter {
		return math.Inf(-1)
	}
	return math.Inf(1)
}

// logs is v's natural logarithms.
func logs(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log(x)
	}
	return out
}

// WorstText says how bad m could be: "+62.1%", or "unbounded (too few
// boots)" when its boots bound nothing.
func WorstText(m *Metric) string {
	if math.IsInf(m.WorstPct, 0) {
		return "unbounded (too few boots)"
	}
	return num.Delta(m.WorstPct)
}

// marginShift is the worse-oriented log shift a pass must rule out for m:
// the comparison's margin, or m's noise floor when that is larger (a
// change the user declared too small to call is not one to rule out).
func marginShift(m *Metric, o Options) float64 {
	margin := math.Log(o.RuleOut)
	if floor, ok := o.NoiseFloorPct[m.Name]; ok {
		f := floor / 100
		if m.Direction == agentproto.HigherIsBetter {
			if f >= 1 {
				return math.Inf(1)
			}
			margin = max(margin, -math.Log(1-f))
		} else {
			margin = max(margin, math.Log(1+f))
		}
	}
	return margin
}

// worsePct turns a worse-oriented log shift into the change it is, in %
// of the baseline: +50 for a lower-is-better metric 1.5 times worse,
// -33.3 for a higher-is-better one.
func worsePct(shift float64, dir agentproto.Direction) float64 {
	if dir == agentproto.HigherIsBetter {
		shift = -shift
	}
	return math.Expm1(shift) * 100
}

// worstShift is the one-sided upper confidence bound, at 1 - miss, on how
// much worse cand is than base, in their units (the caller passes log
// values for a ratio), oriented so that worse is positive. It is the
// Hodges-Lehmann bound: of the n1*n2 differences between a candidate and
// a baseline value, the (k+1)-th largest, k the largest count with
// P(U <= k) <= miss under the Mann-Whitney null, so the true shift lies
// above it at most miss of the time. +Inf when the samples are too few
// for any bound (5+5 can bound at miss >= 1/252).
func worstShift(base, cand []float64, dir agentproto.Direction, miss float64) float64 {
	sign := 1.0
	if dir == agentproto.HigherIsBetter {
		sign = -1
	}
	diffs := make([]float64, 0, len(cand)*len(base))
	for _, c := range cand {
		for _, b := range base {
			diffs = append(diffs, sign*(c-b))
		}
	}
	slices.Sort(diffs)
	k := uTail(len(cand), len(base), miss)
	if k < 0 {
		return math.Inf(1)
	}
	return diffs[len(diffs)-1-k]
}

// uTail is the largest k with P(U <= k) <= miss for the Mann-Whitney U
// of n1 and n2 values under the null (no ties), -1 when even U = 0 is
// likelier than miss.
func uTail(n1, n2 int, miss float64) int {
	if n1 <= stats.MannWhitneyExactLimit && n2 <= stats.MannWhitneyExactLimit {
		cdf := uCDF(n1, n2)
		k := -1
		for u, p := range cdf {
			if p > miss {
				break
			}
			k = u
		}
		return k
	}
	// The normal approximation, with continuity correction.
	mu := float64(n1*n2) / 2
	sd := math.Sqrt(float64(n1*n2) * float64(n1+n2+1) / 12)
	return int(math.Floor(mu + sd*stats.StdNormal.InvCDF(miss) - 0.5))
}

// RuleOutBoots is the boots per side at which m, not ruled out under o
// (Metric.NotRuledOut), would likely be: bootsToRuleOut.
func RuleOutBoots(m *Metric, o Options) int { return bootsToRuleOut(m, o.withDefaults()) }

// bootsToRuleOut is the boots per side at which m's bound would likely
// fall below its margin if m did not change: its bound's width above its
// estimate narrows with the square root of the boots, and the margin is
// the room it has. (Measured against the margin less the observed change,
// an estimate near the margin would ask for thousands: more boots then
// flag it or rule it out, whichever is true.) 0 when its change already
// lies beyond the margin (more boots would flag it, not rule it out);
// at most maxRuleOutBoots.
func bootsToRuleOut(m *Metric, o Options) int {
	n := max(m.Base.N, m.Cand.N)
	margin := marginShift(m, o)
	est := logShift(m)
	if math.IsInf(m.WorstPct, 0) || math.IsNaN(m.WorstPct) || m.WorstPct <= -100 {
		return 2 * n
	}
	if est >= margin {
		return 0
	}
	bound := math.Log1p(m.WorstPct / 100)
	if m.Direction == agentproto.HigherIsBetter {
		bound = -bound
	}
	width := bound - est
	if width <= 0 || math.IsInf(margin, 1) {
		return n + 1
	}
	need := math.Ceil(float64(n) * (width / margin) * (width / margin))
	return int(min(max(need, float64(n+1)), maxRuleOutBoots))
}

// maxRuleOutBoots caps bootsToRuleOut: past it the metric's spread, not
// the boots, is what to look at (icount, a longer workload, a larger
// rule_out).
const maxRuleOutBoots = 1000

// logShift is m's worse-oriented change of log medians (0 when a median
// is not positive).
func logShift(m *Metric) float64 {
	if m.Base.Median <= 0 || m.Cand.Median <= 0 {
		return 0
	}
	s := math.Log(m.Cand.Median / m.Base.Median)
	if m.Direction == agentproto.HigherIsBetter {
		s = -s
	}
	return s
}

// marginText is m's margin in words: "1.5x worse", or its noise floor
// when that is the larger.
func marginText(m *Metric, o Options) string {
	if floor, ok := o.NoiseFloorPct[m.Name]; ok && marginShift(m, o) > math.Log(o.RuleOut) {
		return fmt.Sprintf("its noise floor of %g%%", floor)
	}
	return fmt.Sprintf("%gx worse", o.RuleOut)
}
