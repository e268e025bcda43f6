package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// FailureRate compares how often a candidate's cells failed with how often
// the baseline's did.
//
// The rule, and its false-alarm rate (make calibrate measures it through
// this code):
//
//   - a candidate with no judged cell (every cell infra_error or
//     incomplete) is Unmeasured: nothing was seen, so neither pass nor
//     regression;
//   - a candidate with no ok cell is a Regression: nothing of it could be
//     measured, and a kernel that never survives a cell is broken whatever
//     the baseline's rate (5 of 5 against 2 of 5 is p=0.083, yet a CI gate
//     must not pass it);
//   - a failed cell whose kernel report the baseline never printed (a
//     panic's or a BUG's title) is a Regression on one occurrence: that is a
//     signature, not a rate. It is not free: a flaky title that both
//     kernels print in a few percent of boots is missing from the
//     baseline's few cells by chance often enough to flag many comparisons
//     in which nothing changed (and NewReports flags the same title). So a
//     title that a history of good kernels printed (KnowTitles, which the
//     nightly gives every night) is not new: it is judged as a rate, by
//     the test below; only a title neither the baseline nor its history
//     printed is still a Regression on one occurrence;
//   - otherwise an exact test, one-sided in the direction of the
//     difference (Boschloo's, which is Fisher's made less conservative:
//     see boschloo.go; Fisher's beyond boschlooMaxTables), Benjamini-
//     Hochberg adjusted over every candidate's failure rate in the
//     comparison (its own family), decides at alpha: with the same failure
//     rate on both sides it calls a regression in at most alpha of
//     comparisons, whatever that rate.
//
// Before, any failure where the baseline had none was a regression: with
// the same 2/5/10% flaky rate on both sides and 8+8 cells, that was a false
// alarm in 12/23/24% of comparisons.
type FailureRate struct {
	BaseFailed int `json:"base_failed"`
	BaseCells  int `json:"base_cells"`
	CandFailed int `json:"cand_failed"`
	CandCells  int `json:"cand_cells"`
	// CandOK is the candidate's ok cells.
	CandOK int `json:"cand_ok"`
	// P is the exact test's one-sided p in the direction of the
	// difference (1 when the rates are equal); Q is P adjusted over every
	// candidate's failure rate judged together (Benjamini-Hochberg).
	P float64 `json:"p"`
	Q float64 `json:"q"`
	// Test: "boschloo", or "fisher" when the cells are too many for
	// Boschloo's enumeration.
	Test string `json:"test"`
	// NewSignatures: kernel reports of the candidate's failed cells that
	// the baseline never printed.
	NewSignatures []string `json:"new_signatures,omitempty"`
	// Rule names what decided the verdict: "no_judged_cell", "no_ok_cell",
	// "new_signature", "exact_test".
	Rule    string         `json:"rule"`
	Verdict verdict.Change `json:"verdict"`
	Reason  string         `json:"reason"`
}

// Failure-rate rules (FailureRate.Rule).
const (
	RuleNoJudgedCell = "no_judged_cell"
	RuleNoOKCell     = "no_ok_cell"
	RuleNewSignature = "new_signature"
	RuleExactTest    = "exact_test"
)

// failedCells are rs's cells whose kernel failed.
func failedCells(rs []*results.Result) []*results.Result {
	var out []*results.Result
	for _, r := range rs {
		if r.Status.KernelFailure() {
			out = append(out, r)
		}
	}
	return out
}

// compareFailures measures a candidate's failure rate against the
// baseline's and decides the rules that need no test; judgeFailures
// decides the rest once every candidate's p is known.
func compareFailures(base, cand *Variant) FailureRate {
	f := FailureRate{BaseFailed: base.Failed, BaseCells: base.Judged(), CandFailed: cand.Failed, CandCells: cand.Judged(), CandOK: cand.OK, P: 1, Q: 1, Verdict: verdict.NoChange, Rule: RuleExactTest, Test: "boschloo"}
	if f.CandCells == 0 {
		f.Verdict, f.Rule = verdict.Unmeasured, RuleNoJudgedCell
		f.Reason = fmt.Sprintf("no cell says anything about its kernel (%s): the host failed, not the kernel; nothing was measured, so nothing passed", orNone(num.Statuses(cand.Statuses)))
		return f
	}
	if f.BaseCells == 0 {
		return f // only a baseline without an ok cell has none, and Compare refuses it
	}
	br := float64(f.BaseFailed) / float64(f.BaseCells)
	cr := float64(f.CandFailed) / float64(f.CandCells)
	exact := true
	switch {
	case cr > br:
		f.P, exact = boschlooOneSided(f.CandFailed, f.CandCells, f.BaseFailed, f.BaseCells)
	case cr < br:
		f.P, exact = boschlooOneSided(f.BaseFailed, f.BaseCells, f.CandFailed, f.CandCells)
	}
	if !exact {
		f.Test = "fisher"
	}
	f.Q = f.P
	inBase := map[string]bool{}
	for _, r := range base.Reports {
		inBase[r.Title] = true
	}
	for _, r := range cand.FailureReports {
		if !inBase[r.Title] {
			f.NewSignatures = append(f.NewSignatures, r.Title)
		}
	}
	switch {
	case cand.OK == 0:
		f.Verdict, f.Rule = verdict.Regression, RuleNoOKCell
		f.Reason = f.counts() + ": no ok cell, nothing of it could be measured"
	case len(f.NewSignatures) > 0:
		f.Verdict, f.Rule = verdict.Regression, RuleNewSignature
		f.Reason = fmt.Sprintf("%s: failed with kernel report(s) the baseline never printed: %s", f.counts(), strings.Join(f.NewSignatures, "; "))
	}
	return f
}

// counts renders "fails in 1 of 3 cells where the baseline never failed
// (3 cells)" or "fails in 4 of 8 cells against 1 of 8".
func (f FailureRate) counts() string {
	if f.BaseFailed == 0 {
		return fmt.Sprintf("fails in %d of %d cells where the baseline never failed (%d cells)", f.CandFailed, f.CandCells, f.BaseCells)
	}
	return fmt.Sprintf("fails in %d of %d cells against %d of %d", f.CandFailed, f.CandCells, f.BaseFailed, f.BaseCells)
}

func orNone(s string) string {
	if s == "" {
		return "no cell at all"
	}
	return s
}

// judgeFailures adjusts every candidate's failure-rate p over the diffs
// (one family, as Rejudge makes the metrics one) and judges those no rule
// decided.
func judgeFailures(diffs ...*Diff) {
	type ref struct {
		d    *Diff
		name string
	}
	var fam []ref
	var ps []float64
	for _, d := range diffs {
		names := make([]string, 0, len(d.Failures))
		for name := range d.Failures {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			f := d.Failures[name]
			if f.Verdict == verdict.Unmeasured || f.BaseCells == 0 {
				continue
			}
			fam = append(fam, ref{d, name})
			ps = append(ps, f.P)
		}
	}
	for i, q := range benjaminiHochberg(ps) {
		d, name := fam[i].d, fam[i].name
		f := d.Failures[name]
		f.Q = q
		if f.Rule == RuleExactTest {
			f.Verdict, f.Reason = verdict.NoChange, ""
			br := float64(f.BaseFailed) / float64(f.BaseCells)
			cr := float64(f.CandFailed) / float64(f.CandCells)
			test := fmt.Sprintf("%s p=%.3f, q=%.3f over %d failure rate(s)", testName[f.Test], f.P, f.Q, len(fam))
			switch {
			case cr > br && f.Q < d.Options.Alpha:
				f.Verdict = verdict.Regression
				f.Reason = fmt.Sprintf("%s (%s)", f.counts(), test)
			case cr < br && f.Q < d.Options.Alpha:
				f.Verdict = verdict.Improvement
				f.Reason = fmt.Sprintf("%s (%s)", f.counts(), test)
			case cr != br:
				f.Reason = fmt.Sprintf("%s: not significant (%s; smallest possible p %.3f)", f.counts(), test, minFailureP(f))
			}
		}
		d.Failures[name] = f
	}
}

// testName is how the reasons name each test.
var testName = map[string]string{"boschloo": "Boschloo", "fisher": "Fisher"}

// minFailureP is the smallest one-sided p the test could give with these
// cell counts and this many failures (all of them on one side): when it is
// above alpha, only a rule (no ok cell, a new signature) can flag it.
func minFailureP(f FailureRate) float64 {
	k := f.BaseFailed + f.CandFailed
	if k == 0 {
		return 1
	}
	n1, n2 := f.CandCells, f.BaseCells
	if f.CandFailed < f.BaseFailed {
		n1, n2 = n2, n1
	}
	if k > n1 {
		// Not every failure fits on one side: the most extreme table
		// puts n1 there.
		p, _ := boschlooOneSided(n1, n1, k-n1, n2)
		return p
	}
	p, _ := boschlooOneSided(k, n1, 0, n2)
	return p
}

// Unmeasured lists the candidates that were not measured at all (every
// cell infra_error or incomplete), as "candidate: why". Its callers say
// "unmeasured" once, in their own words.
func (d *Diff) Unmeasured() []string {
	var out []string
	for _, v := range d.Variants[1:] {
		if f := d.Failures[v.Name]; f.Verdict == verdict.Unmeasured {
			out = append(out, fmt.Sprintf("%s: %s", v.Name, f.Reason))
		}
	}
	return out
}

// UnmeasuredError says a comparison's candidates were not measured: no
// cell of theirs said anything about their kernel. A CI gate fails on it
// as an infrastructure error (exit 1), never as a pass.
type UnmeasuredError struct {
	Sets []string // "candidate: why" (Diff.Unmeasured)
}

func (e *UnmeasuredError) Error() string {
	return fmt.Sprintf("not measured, so not passed: %s (see the cells' errors: `kregress results show RUN`)", strings.Join(e.Sets, "; "))
}

// ExitStatus is ComparisonUnmeasured's: not the kernel's failure, the
// host's.
func (e *UnmeasuredError) ExitStatus() verdict.Exit { return verdict.ComparisonUnmeasured.Exit() }

// UnmeasuredErr is an *UnmeasuredError naming every unmeasured candidate
// of diffs, or nil when each was measured.
func UnmeasuredErr(diffs ...*Diff) error {
	var sets []string
	for _, d := range diffs {
		sets = append(sets, d.Unmeasured()...)
	}
	if len(sets) == 0 {
		return nil
	}
	return &UnmeasuredError{Sets: sets}
}

// Gate is Judge as a CI gate's outcome (kregress run and diff
// --fail-on-regression) when something outside diffs may have flagged a
// candidate too (flagged: the debug pass): ComparisonRegression then; a
// ComparisonUnmeasured verdict is returned as the *UnmeasuredError naming
// the candidates (the host's failure, not the kernel's).
func Gate(flagged bool, diffs ...*Diff) (verdict.Comparison, error) {
	v := Judge(diffs...)
	if flagged {
		v = verdict.ComparisonRegression
	}
	if v == verdict.ComparisonUnmeasured {
		return v, UnmeasuredErr(diffs...)
	}
	return v, nil
}

// Judge is what diffs come to as a CI gate, in this order:
// ComparisonRegression when a candidate fails (Failing: a metric, its
// failure rate, a new kernel report, a selftest), else
// ComparisonUnmeasured when one was not measured (UnmeasuredErr says
// which), else ComparisonUnjudged when a primary metric could not reach
// alpha, else ComparisonPass. Its Exit is the gate's exit code.
func Judge(diffs ...*Diff) verdict.Comparison {
	for _, d := range diffs {
		if len(d.Failing()) > 0 {
			return verdict.ComparisonRegression
		}
	}
	if UnmeasuredErr(diffs...) != nil {
		return verdict.ComparisonUnmeasured
	}
	for _, d := range diffs {
		if len(d.Unjudged()) > 0 {
			return verdict.ComparisonUnjudged
		}
	}
	return verdict.ComparisonPass
}
