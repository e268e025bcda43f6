package compare

import (
	"errors"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/verdict"
)

// Defect: one failure where the baseline had none was a regression, so a
// kernel that fails 1 cell in 8 on both sides was flagged whenever the
// baseline's 8 happened to pass. Now an exact test decides: 1 of 8 against
// 0 of 8 is p=0.40, no change; 6 of 8 against 0 of 8 is p=0.001, flagged.
func TestOneUntitledFailureIsNotARegression(t *testing.T) {
	rs := append(comparetest.Mixed("base", results.StatusTimeout, 0, 8), comparetest.Mixed("cand", results.StatusTimeout, 1, 8)...)
	d, err := Compare(rs, "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := d.Failures["cand"]
	if f.Verdict != verdict.NoChange || f.Rule != RuleExactTest || f.Test != "boschloo" || f.P < 0.3 || len(d.Failing()) != 0 {
		t.Fatalf("1 of 8 vs 0 of 8: %+v, failing %q", f, d.Failing())
	}
	if !strings.Contains(f.Reason, "not significant") || !strings.Contains(f.Reason, "smallest possible p") {
		t.Fatalf("reason %q", f.Reason)
	}
	rs = append(comparetest.Mixed("base", results.StatusTimeout, 0, 8), comparetest.Mixed("cand", results.StatusTimeout, 6, 8)...)
	d, _ = Compare(rs, "base", Options{})
	f = d.Failures["cand"]
	if f.Verdict != verdict.Regression || f.P >= 0.05 || !strings.HasPrefix(d.Failing()[0], "cand: fails in 6 of 8 cells where the baseline never failed (8 cells) (Boschloo p=0.001") {
		t.Fatalf("6 of 8 vs 0 of 8: %+v %q", f, d.Failing())
	}
	// Fewer failures than the baseline need evidence too.
	rs = append(comparetest.Mixed("base", results.StatusTimeout, 1, 8), comparetest.Mixed("cand", results.StatusTimeout, 0, 8)...)
	d, _ = Compare(rs, "base", Options{})
	if f := d.Failures["cand"]; f.Verdict != verdict.NoChange {
		t.Fatalf("0 of 8 vs 1 of 8 called %s", f.Verdict)
	}
}

// The failure rates of several candidates are one family: their p-values
// are adjusted together (Benjamini-Hochberg), as the metrics' are.
func TestFailureRatesAreOneFamily(t *testing.T) {
	rs := comparetest.Mixed("base", results.StatusTimeout, 0, 8)
	rs = append(rs, comparetest.Mixed("a", results.StatusTimeout, 3, 8)...) // Boschloo p = 0.041
	rs = append(rs, comparetest.Mixed("b", results.StatusTimeout, 0, 8)...)
	d, err := Compare(rs, "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := d.Failures["a"]
	if a.P < 0.025 || a.P >= 0.05 || math.Abs(a.Q-2*a.P) > 1e-12 || a.Verdict != verdict.NoChange {
		t.Fatalf("a, alone significant, not after adjusting over 2 candidates: %+v", a)
	}
	// Alone it is a regression.
	rs = append(comparetest.Mixed("base", results.StatusTimeout, 0, 8), comparetest.Mixed("a", results.StatusTimeout, 3, 8)...)
	d, _ = Compare(rs, "base", Options{})
	if d.Failures["a"].Verdict != verdict.Regression {
		t.Fatalf("a alone: %+v", d.Failures["a"])
	}
}

// Defect: a candidate that failed 5 of 5 against a baseline's 2 of 5 was
// "no significant change" (Fisher p=0.083) and passed the gate. It fails
// by rule, whatever a test says (Boschloo's p=0.031 would too at 0.05, not
// over several candidates).
func TestNoOKCellAlwaysFails(t *testing.T) {
	rs := append(comparetest.Mixed("base", results.StatusBootFailed, 2, 5), comparetest.Mixed("cand", results.StatusBootFailed, 5, 5)...)
	d, err := Compare(rs, "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := d.Failures["cand"]
	if f.Verdict != verdict.Regression || f.Rule != RuleNoOKCell {
		t.Fatalf("5 of 5 vs 2 of 5: %+v", f)
	}
	fail := d.Failing()
	if len(fail) != 1 || fail[0] != "cand: fails in 5 of 5 cells against 2 of 5: no ok cell, nothing of it could be measured" {
		t.Fatalf("failing %q", fail)
	}
}

// A kernel report title the baseline never printed is a signature: one
// occurrence in 8 cells flags it, as a new report and, when the cell
// failed with it, as the failure rate's regression. This is the shape of
// the end-to-end TestCrashInSomeRepetitions: 1 of 3 cells panics, the
// baseline's 3 are ok, so a test alone (p=0.34) could never flag it.
func TestNewTitleFlagsOnOneOccurrence(t *testing.T) {
	panicked := results.Finding{Kind: results.FindingPanic, Title: "kernel panic: kregress e2e: memory.peak write", Count: 1}
	cand := append(comparetest.WithFinding(comparetest.Cells("peak-panics", results.StatusCrashed, 1), panicked), comparetest.Cells("peak-panics", results.StatusOK, 2, 1, 2)...)
	d, err := Compare(append(comparetest.Cells("base", results.StatusOK, 3, 1, 2, 3), cand...), "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := d.Failures["peak-panics"]
	if f.Verdict != verdict.Regression || f.Rule != RuleNewSignature || f.P < 0.05 {
		t.Fatalf("1 of 3 crashed with a new panic: %+v", f)
	}
	fail := strings.Join(d.Failing(), "\n")
	for _, want := range []string{"peak-panics: fails in 1 of 3 cells where the baseline never failed", "peak-panics: new kernel report: kernel panic: kregress e2e: memory.peak write (1 of 3 cells; baseline 0 of 3)"} {
		if !strings.Contains(fail, want) {
			t.Errorf("failing lacks %q:\n%s", want, fail)
		}
	}
	// A WARNING in one ok cell of 8: flagged as a new report.
	warn := results.Finding{Kind: results.FindingWarning, Title: "WARNING in css_rstat_flush", Count: 1}
	cand = append(comparetest.WithFinding(comparetest.Cells("warn", results.StatusOK, 1, 1), warn), comparetest.Cells("warn", results.StatusOK, 7, 1, 2, 3)...)
	d, _ = Compare(append(comparetest.Cells("base", results.StatusOK, 8, 1, 2, 3), cand...), "base", Options{})
	if got := d.NewReports(); len(got) != 1 || !strings.Contains(got[0], "WARNING in css_rstat_flush (1 of 8 cells; baseline 0 of 8)") {
		t.Fatalf("new reports %q", got)
	}
	// The same panic in the baseline too is no signature: the test decides.
	base := append(comparetest.WithFinding(comparetest.Cells("base", results.StatusCrashed, 1), panicked), comparetest.Cells("base", results.StatusOK, 2, 1, 2)...)
	cand = append(comparetest.WithFinding(comparetest.Cells("cand", results.StatusCrashed, 1), panicked), comparetest.Cells("cand", results.StatusOK, 2, 1, 2)...)
	d, _ = Compare(append(base, cand...), "base", Options{})
	if f := d.Failures["cand"]; f.Verdict != verdict.NoChange || f.Rule != RuleExactTest || len(d.Failing()) != 0 {
		t.Fatalf("a panic both sides print: %+v %q", f, d.Failing())
	}
}

// The same flaky failure rate on both sides, 8+8 cells: the share of
// comparisons that call a failure-rate regression stays within alpha
// (before: 12/23/24% at 2/5/10%). Fixed seed: the figure is reproducible.
func TestSameFlakyRateFalseAlarm(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const trials = 400
	for _, rate := range []float64{0.02, 0.05, 0.10} {
		alarms := 0
		for i := 0; i < trials; i++ {
			side := func(name string) []*results.Result {
				var rs []*results.Result
				for c := 0; c < 8; c++ {
					st := results.StatusOK
					if rng.Float64() < rate {
						st = results.StatusTimeout
					}
					rs = append(rs, comparetest.Cells(name, st, 1, float64(c))...)
				}
				return rs
			}
			rs := append(side("base"), side("cand")...)
			d, err := Compare(rs, "base", Options{})
			var be *BaselineError
			if errors.As(err, &be) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Failures["cand"].Verdict == verdict.Regression {
				alarms++
			}
		}
		if got := float64(alarms) / trials; got > 0.05 {
			t.Errorf("flaky rate %.0f%% both sides: failure-rate regression in %.1f%% of comparisons, want <= 5%%", rate*100, got*100)
		}
	}
}

// The smallest p is the test's p of the most extreme table with as many
// failures: all on one side, or as many as fit there.
func TestMinFailureP(t *testing.T) {
	p := func(a, n1, b, n2 int) float64 { v, _ := boschlooOneSided(a, n1, b, n2); return v }
	for _, c := range []struct {
		f    FailureRate
		want float64
	}{
		{FailureRate{CandFailed: 1, CandCells: 3, BaseFailed: 0, BaseCells: 3}, p(1, 3, 0, 3)},
		{FailureRate{CandFailed: 0, CandCells: 3, BaseFailed: 1, BaseCells: 3}, p(1, 3, 0, 3)},
		{FailureRate{CandFailed: 2, CandCells: 5, BaseFailed: 5, BaseCells: 5}, p(5, 5, 2, 5)},
		{FailureRate{CandFailed: 0, CandCells: 8, BaseFailed: 0, BaseCells: 8}, 1},
	} {
		if got := minFailureP(c.f); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("minFailureP(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
}
