package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/kregress/kregress/results/verdict"
)

// PrimaryShare is the part of alpha the primary metrics' family is
// judged at when secondary metrics are judged too (they get the rest):
// most of it, so that one primary metric of one candidate is callable at
// 4+4 boots (smallest p 0.029 <= 0.04), while the union of the two
// families still flags a null comparison at most alpha of the time.
const PrimaryShare = 0.8

// Reachable says whether one metric changing alone, among family metrics
// judged together, can reach q < alpha with n1 and n2 samples: its
// smallest possible p times the family's size (Benjamini-Hochberg's q of
// a lone smallest p) is at most alpha.
func Reachable(n1, n2, family int, alpha float64) bool {
	return MinMannWhitneyP(n1, n2)*float64(max(family, 1)) <= alpha
}

// NeededReps is the smallest number of samples per side at which one
// metric changing alone among family metrics can reach alpha (0 when no n
// up to 1000 can, e.g. alpha <= 0).
func NeededReps(family int, alpha float64) int {
	for n := 1; n <= 1000; n++ {
		if Reachable(n, n, family, alpha) {
			return n
		}
	}
	return 0
}

// CheckAlpha refuses a significance level outside (0, 1): 0 (which
// Options would silently take for the default), 1 and above (every
// comparison flagged), negative or NaN. what names the knob in the error.
func CheckAlpha(what string, alpha float64) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("%s %g is outside (0, 1): it is the false-discovery rate, e.g. 0.05", what, alpha)
	}
	return nil
}

// CheckReps refuses, before anything is built, a plan whose primary
// metrics cannot be judged: reps samples per side of candidates
// candidates, each with primaries primary metrics judged together (every
// candidate's together, as the diff and the nightly judge them), at
// alpha. With no primary metric the family is unknown until the results
// exist, and only the smallest p of one metric is checked.
func CheckReps(reps, candidates, primaries int, alpha float64) error {
	if err := CheckAlpha("alpha", alpha); err != nil {
		return err
	}
	level := fmt.Sprintf("%.3g", alpha)
	if primaries > 0 {
		// Secondary metrics are judged too: the primary family gets
		// its share of alpha (the workloads all have secondary ones).
		level = fmt.Sprintf("%.3g (the primary metrics' share of %.3g)", alpha*PrimaryShare, alpha)
		alpha *= PrimaryShare
	}
	family := max(candidates, 1) * max(primaries, 1)
	if Reachable(reps, reps, family, alpha) {
		return nil
	}
	need := NeededReps(family, alpha)
	what := fmt.Sprintf("%d primary metric(s) of %d candidate(s) are judged together (a family of %d)", primaries, candidates, family)
	if primaries == 0 {
		what = "one metric"
	}
	return fmt.Errorf("%d repetitions cannot reach alpha %s: %s, and with %d vs %d samples the smallest possible p is %.4f, so one change alone reaches q %.4f at best; it needs %d repetitions per variant (or fewer candidates or primary metrics, or a larger alpha)",
		reps, level, what, reps, reps, MinMannWhitneyP(reps, reps), MinMannWhitneyP(reps, reps)*float64(family), need)
}

// PowerLines says, for each deciding metric found unchanged, the
// smallest change this comparison would have seen with 80% power:
// "reads_per_sec: no change; this run could see >= 31%".
func (d *Diff) PowerLines() []string {
	var out []string
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			if m.Verdict != verdict.NoChange || math.IsNaN(m.CouldSeePct) {
				continue
			}
			name := m.Name
			if len(d.Variants) > 2 {
				name = v.Name + " " + m.Name
			}
			out = append(out, name+": "+CouldSeeText(m.CouldSeePct, m.Base.N, m.Cand.N, m.Family))
		}
	}
	return out
}

// CouldSeeText renders a stated MDE.
func CouldSeeText(pct float64, n1, n2, family int) string {
	where := fmt.Sprintf("(80%% power, n=%d+%d", n1, n2)
	if family > 1 {
		where += fmt.Sprintf(", family of %d", family)
	}
	where += ")"
	switch {
	case math.IsInf(pct, 1):
		return "no change; this run could not see any change " + where
	case pct < 0.05:
		return "no change; this run could see any change " + where
	}
	return fmt.Sprintf("no change; this run could see >= %s %s", strings.TrimSuffix(fmt.Sprintf("%.1f", pct), ".0")+"%", where)
}

// couldSee is the smallest change m's comparison finds with 80% power,
// simulated at its n, its measured spread and its family (see MDE). The
// spread is estimated from the run's own few samples; taken as measured,
// the change stated is found in fewer than 80% of runs (79% at 8+8,
// kregress-calibrate), because an underestimated spread states too small
// a change. So the spread is taken at its 75% upper confidence bound.
func couldSee(m *Metric) float64 {
	sigma, log, ok := Spread(m.Base.Values, m.Cand.Values)
	if !ok {
		return math.Inf(1)
	}
	df := max(m.Base.N-1, 0) + max(m.Cand.N-1, 0)
	sigma *= math.Sqrt(float64(df) / chiSquareQuantile(0.25, df))
	return MDE(PowerSpec{N1: m.Base.N, N2: m.Cand.N, Sigma: sigma, Log: log, Family: m.Family, Alpha: m.Alpha, Seed: 1})
}

// chiSquareQuantile is the q quantile of the chi-square distribution with
// df degrees of freedom (Wilson-Hilferty; within 1% from df 3 on).
func chiSquareQuantile(q float64, df int) float64 {
	k := float64(max(df, 1))
	z := math.Sqrt2 * math.Erfinv(2*q-1)
	c := 1 - 2/(9*k) + z*math.Sqrt(2/(9*k))
	return k * math.Max(c*c*c, 1e-9)
}

// CompareFamily compares each pair of groups (a baseline, then the set
// compared with it) and judges every pair's metrics as one
// false-discovery family, as a run's candidates are judged: `diff RUN_A
// RUN_B` over several variants asks one question, and judging each
// variant as its own family flagged 14% of null comparisons of 6.
func CompareFamily(pairs [][]Group, opts Options) ([]*Diff, error) {
	var diffs []*Diff
	for _, p := range pairs {
		d, err := CompareGroups(p, opts)
		if err != nil {
			return nil, err
		}
		diffs = append(diffs, d)
	}
	if len(diffs) > 1 {
		Rejudge(diffs...)
	}
	return diffs, nil
}
