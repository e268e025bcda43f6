package compare

import (
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/verdict"
)

// flakyTitle is 8+8 cells where one candidate cell crashed with a panic
// titled title and the baseline's 8 passed: what a flaky panic printed in
// a few percent of boots by both kernels looks like in most comparisons.
func flakyTitle(title string) []*results.Result {
	crash := comparetest.WithFinding(comparetest.Cells("cand", results.StatusCrashed, 1), results.Finding{Kind: results.FindingPanic, Title: title, Count: 1})
	rs := append(comparetest.Mixed("base", results.StatusCrashed, 0, 8), crash...)
	return append(rs, comparetest.Cells("cand", results.StatusOK, 7, 1, 2, 3, 4, 5, 6, 7)...)
}

// Defect: a flaky panic title both kernels print was flagged as a new
// signature whenever the baseline's cells happened to miss it. A title a
// history of good kernels printed is judged as a rate (1 of 8 against 0
// of 8: no change); a title nobody printed is still flagged on one
// occurrence.
func TestKnownTitleIsJudgedAsARate(t *testing.T) {
	const flaky = "general protection fault in flaky_driver"
	d, err := Compare(flakyTitle(flaky), "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := d.Failures["cand"]; f.Verdict != verdict.Regression || f.Rule != RuleNewSignature || len(d.NewReports()) != 1 {
		t.Fatalf("without history: %+v, new reports %q", f, d.NewReports())
	}
	KnowTitles(KnownTitles{flaky: true}, d)
	f := d.Failures["cand"]
	if f.Verdict != verdict.NoChange || f.Rule != RuleExactTest || len(f.NewSignatures) != 0 || len(d.NewReports()) != 0 || len(d.Failing()) != 0 {
		t.Fatalf("known title: %+v, failing %q", f, d.Failing())
	}
	if rc := d.Reports["cand"]; len(rc) != 1 || !rc[0].Known || rc[0].New {
		t.Fatalf("report change %+v", rc)
	}

	d, err = Compare(flakyTitle("kernel BUG at mm/new.c"), "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	KnowTitles(KnownTitles{flaky: true}, d)
	if f := d.Failures["cand"]; f.Verdict != verdict.Regression || f.Rule != RuleNewSignature || len(d.NewReports()) != 1 {
		t.Fatalf("a title the history never printed: %+v, new reports %q", f, d.NewReports())
	}
}

// A known title in many cells is still a failure-rate regression: known
// makes it a rate, it does not excuse it.
func TestKnownTitleAtAHighRateIsFlagged(t *testing.T) {
	const flaky = "general protection fault in flaky_driver"
	crash := comparetest.WithFinding(comparetest.Cells("cand", results.StatusCrashed, 6), results.Finding{Kind: results.FindingPanic, Title: flaky, Count: 1})
	rs := append(comparetest.Mixed("base", results.StatusCrashed, 0, 8), crash...)
	rs = append(rs, comparetest.Cells("cand", results.StatusOK, 2, 1, 2)...)
	d, err := Compare(rs, "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	KnowTitles(KnownTitles{flaky: true}, d)
	if f := d.Failures["cand"]; f.Verdict != verdict.Regression || f.Rule != RuleExactTest {
		t.Fatalf("6 of 8 with a known title: %+v", f)
	}
}
