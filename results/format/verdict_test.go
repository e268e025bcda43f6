package format_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

func TestCrashesAreRegressions(t *testing.T) {
	var rs []*results.Result
	rs = append(rs, comparetest.Cells("base", results.StatusOK, 5, 1, 2, 3, 4, 5)...)
	// 3 of 5 crashed with a panic the baseline never printed, the 2 ok
	// ones look alike: once "no significant change". The panic's title is
	// the failure's signature: one occurrence flags it.
	rs = append(rs, comparetest.WithFinding(comparetest.Cells("crashy", results.StatusCrashed, 3), results.Finding{Kind: results.FindingPanic, Title: "kernel panic: Fatal exception", Count: 1})...)
	rs = append(rs, comparetest.Cells("crashy", results.StatusOK, 2, 2, 3)...)
	// Every cell crashed: once "has no ok run", and no comparison at all.
	rs = append(rs, comparetest.Cells("dead", results.StatusCrashed, 5)...)
	// Lock held 6x longer, no crash: must still be reported.
	for _, r := range comparetest.Cells("slow", results.StatusOK, 5, 1, 2, 3, 4, 5) {
		r.Metrics[1].Value *= 6
		rs = append(rs, r)
	}
	d, err := compare.Compare(rs, "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	regs := d.Regressions()
	if len(regs) < 3 || !strings.HasPrefix(regs[0], "crashy: fails in 3 of 5 cells where the baseline never failed") ||
		!strings.HasPrefix(regs[1], "dead: fails in 5 of 5 cells") {
		t.Fatalf("failure regressions not listed first: %q", regs)
	}
	found := false
	for _, r := range regs {
		found = found || strings.HasPrefix(r, "slow: hold_us")
	}
	if !found {
		t.Fatalf("the 6x lock hold of another candidate went unreported: %q", regs)
	}
	if len(d.Metrics["dead"]) != 0 || d.Failures["dead"].Verdict != verdict.Regression {
		t.Fatalf("dead: %+v", d.Failures["dead"])
	}
	var b strings.Builder
	format.WriteDiff(&b, d, format.Table)
	if !strings.Contains(b.String(), "REGRESSION: 3/5 failed (baseline 0/5)") || !strings.Contains(b.String(), "no ok cell: nothing measured") {
		t.Fatalf("table:\n%s", b.String())
	}
	// The baseline itself failing leaves nothing to compare: a typed error.
	_, err = compare.Compare(append(comparetest.Cells("base", results.StatusBootFailed, 2), comparetest.Cells("x", results.StatusOK, 2, 1)...), "base", compare.Options{})
	var be *compare.BaselineError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "2 boot_failed") {
		t.Fatalf("baseline failure: %v", err)
	}
	// Infrastructure errors are not the kernel's: not a regression.
	d, _ = compare.Compare(append(comparetest.Cells("base", results.StatusOK, 5, 1, 2, 3, 4, 5), append(comparetest.Cells("y", results.StatusOK, 4, 1, 2, 3, 4), comparetest.Cells("y", results.StatusInfra, 1)...)...), "base", compare.Options{})
	if d.Failures["y"].Verdict != verdict.NoChange || len(d.Regressions()) != 0 {
		t.Fatalf("infra error judged as a kernel failure: %+v", d.Failures["y"])
	}
}
