package format_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

// An all-infra candidate has no metric: every format must still say it
// was unmeasured, and none may say "no significant regression".
func TestEveryFormatSaysUnmeasured(t *testing.T) {
	rs := append(comparetest.Mixed("base", results.StatusTimeout, 0, 5), comparetest.Cells("cand", results.StatusInfra, 5)...)
	d, err := compare.Compare(rs, "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := format.WriteDiff(&b, d, format.Markdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**Unmeasured (not passed):**") || strings.Contains(b.String(), "No significant regression") {
		t.Fatalf("markdown:\n%s", b.String())
	}
	b.Reset()
	if err := format.WriteDiff(&b, d, format.CSV); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows[1:] {
		if len(r) != len(rows[0]) {
			t.Fatalf("row %q has %d columns, header %d", r, len(r), len(rows[0]))
		}
		found = found || (r[1] == "cand" && r[len(r)-1] == string(verdict.Unmeasured))
	}
	if !found {
		t.Fatalf("csv has no unmeasured row for cand: %q", rows)
	}
	b.Reset()
	if err := format.WriteDiff(&b, d, format.LKP); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "UNMEASURED: no cell says anything about its kernel") {
		t.Fatalf("lkp:\n%s", b.String())
	}
}

// A new kernel report fails the comparison (exit 3) even when nothing
// regressed and the metrics were unjudged (3+3 cells): the table's verdict
// line must say flagged, not UNJUDGED, and still name the unjudged metric.
func TestTableVerdictFlaggedBeforeUnjudged(t *testing.T) {
	warn := results.Finding{Kind: results.FindingWarning, Title: "WARNING in css_rstat_flush", Count: 1}
	cand := append(comparetest.WithFinding(comparetest.Cells("warn", results.StatusOK, 1, 1), warn), comparetest.Cells("warn", results.StatusOK, 2, 2, 3)...)
	d, err := compare.Compare(append(comparetest.Cells("base", results.StatusOK, 3, 1, 2, 3), cand...), "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Regressions()) != 0 || len(d.Failing()) == 0 || len(d.Unjudged()) == 0 {
		t.Fatalf("precondition: regressions %q, failing %q, unjudged %q", d.Regressions(), d.Failing(), d.Unjudged())
	}
	var b bytes.Buffer
	format.WriteDiff(&b, d, format.Table)
	out := b.String()
	if strings.Contains(out, "verdict: UNJUDGED") || !strings.Contains(out, "verdict: FLAGGED") || !strings.Contains(out, "also unjudged: ") {
		t.Fatalf("table:\n%s", out)
	}
	b.Reset()
	if err := format.WriteDiff(&b, d, format.Markdown); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "No significant regression") {
		t.Fatalf("markdown says no regression beside a flag:\n%s", b.String())
	}
}
