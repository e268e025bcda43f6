package format_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
)

// A WARNING only the candidate prints fails the comparison even when every
// metric is the same; one the baseline prints too is listed, not judged.
func TestNewKernelReportFails(t *testing.T) {
	old := results.Finding{Kind: results.FindingWarning, Title: "WARNING in old_bug", Count: 1}
	warn := results.Finding{Kind: results.FindingWarning, Title: "WARNING in memory_stat_show", Count: 4, Excerpt: "WARNING: CPU: 0 PID: 1 at mm/memcontrol.c:1 memory_stat_show+0x1/0x2"}
	var rs []*results.Result
	rs = append(rs, comparetest.WithFinding(comparetest.Cells("base", results.StatusOK, 5, 1, 2, 3, 4, 5), old)...)
	cand := comparetest.WithFinding(comparetest.Cells("warn", results.StatusOK, 5, 1, 2, 3, 4, 5), old)
	comparetest.WithFinding(cand[:2], warn)
	rs = append(rs, cand...)
	rs = append(rs, comparetest.WithFinding(comparetest.Cells("same", results.StatusOK, 5, 1, 2, 3, 4, 5), old)...)
	d, err := compare.Compare(rs, "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Regressions()) != 0 {
		t.Fatalf("metrics are the same, yet: %v", d.Regressions())
	}
	fail := d.Failing()
	if len(fail) != 1 || fail[0] != "warn: new kernel report: WARNING in memory_stat_show (2 of 5 cells; baseline 0 of 5)" {
		t.Fatalf("failing: %q", fail)
	}
	rc := d.Reports["warn"]
	if len(rc) != 2 || rc[0].New || rc[0].BaselineCells != 5 || !rc[1].New || rc[1].Cells != 2 {
		t.Fatalf("report changes %+v", rc)
	}
	var b bytes.Buffer
	format.WriteDiff(&b, d, format.Table)
	for _, want := range []string{"NEW: WARNING in memory_stat_show (2 of 5 cells; baseline 0 of 5)", "also in baseline: WARNING in old_bug", "first \"WARNING in memory_stat_show\" in warn:", "    WARNING: CPU: 0 PID: 1 at mm/memcontrol.c:1", "FLAGGED, kernel reports the baseline never printed"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	format.WriteDiff(&b, d, format.JSON)
	if !strings.Contains(b.String(), `"failing": [`) || !strings.Contains(b.String(), `"title": "WARNING in memory_stat_show"`) {
		t.Errorf("JSON lacks the reports:\n%s", b.String())
	}
}
