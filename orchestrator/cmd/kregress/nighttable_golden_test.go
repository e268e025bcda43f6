package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/trendreport"
	"github.com/kregress/kregress/results/verdict"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenNight is a night with every part its reports render: a first
// night, a regression handed off (one bisected, one without a range), an
// error with a long log, a skipped metric, shifts, notes and trends.
func goldenNight() []*nightly.Result {
	start := time.Date(2026, 3, 4, 1, 2, 3, 0, time.UTC)
	long := ""
	for i := 1; i <= 40; i++ {
		long += fmt.Sprintf("console line %d\n", i)
	}
	first := &nightly.Result{Experiment: "pcpu-execve", Outcome: verdict.FirstNight, Verdict: "first night (baseline set)", RunIDs: []int64{7},
		Commit: "0123456789abcdef0123456789abcdef01234567", Describe: "v6.9-rc1-12-g0123456789ab", ConfigSHA: "c0ffee",
		Cases: []nightly.Case{}, Shifts: []nightly.Shift{}, Notes: []string{"no good night of this experiment yet: tonight is its baseline"},
		Started: start, Finished: start.Add(90 * time.Second)}
	h := &nightly.Handoff{Experiment: "/e/rstat.yaml", Variant: "relock", Kind: nightly.KindMetric, Metric: "hold_p50_us",
		Good: "1111111111111111111111111111111111111111", Bad: "2222222222222222222222222222222222222222", Commits: 3,
		Command:  "kregress bisect -c /e/rstat.yaml --good 111111111111 --bad 222222222222 --variant relock --metric hold_p50_us",
		BisectID: 4, Culprit: "333333333333 cgroup: slow", Confirmation: "confirmed"}
	crash := &nightly.Handoff{Experiment: "/e/rstat.yaml", Variant: "relock", Kind: nightly.KindKernelReport,
		NoRange: "kernel.git_tree is not set: no repository to count and bisect the commits in"}
	one := &nightly.Handoff{Experiment: "/e/rstat.yaml", Variant: "base", Kind: nightly.KindSelftests, Good: h.Good, Bad: h.Bad, Commits: 1,
		Command: "kregress bisect -c /e/rstat.yaml --crash", Note: "a crash bisect counts a kernel report only when it fails the kernel"}
	slow := &nightly.Result{Experiment: "rstat-relock", Outcome: verdict.Regression, Verdict: "REGRESSION", RunIDs: []int64{9, 10},
		BaselineID: 5, Baseline: "good night", Commit: h.Bad, Describe: "v6.9-rc2", ConfigSHA: "beef",
		Cases: []nightly.Case{
			{Variant: "base", Name: "hold_p50_us", Status: nightly.CasePass, Message: "~ +0.3%: could see a change of 4.0%"},
			{Variant: "base", Name: "ops", Status: nightly.CasePass, Message: "~"},
			{Variant: "base", Name: "note", Status: nightly.CasePass},
			{Variant: "relock", Name: "hold_p50_us", Status: nightly.CaseFailure, Message: "+25.0% (q=0.001)", Detail: "10.0 -> 12.5 us", Kind: nightly.KindMetric,
				Metric: &compare.Change{Name: "hold_p50_us", Base: 10, Cand: 12.5, DeltaPct: 25, P: 0.001, Q: 0.001, N1: 8, N2: 8, MDEPct: 4}, Bisect: h},
			{Variant: "relock", Name: "kernel reports", Status: nightly.CaseFailure, Message: "new WARNING in rstat_flush", Kind: nightly.KindKernelReport, Bisect: crash},
			{Variant: "base", Name: "selftests", Status: nightly.CaseFailure, Message: "cgroup:test_core fails", Kind: nightly.KindSelftests, Bisect: one},
			{Variant: "relock", Name: "boot", Status: nightly.CaseError, Message: "1 of 8 boots crashed", Detail: long},
			{Variant: "relock", Name: "same", Status: nightly.CaseError, Message: "same text", Detail: "same text"},
			{Variant: "base", Name: "ops_p99", Status: nightly.CaseSkipped, Message: "unjudged: 3 ok boots <reach> alpha & more"},
			{Name: "infra", Status: nightly.CaseSkipped, Message: "no variant"},
		},
		Shifts: []nightly.Shift{
			{Variant: "relock", Metric: "hold_p50_us", RunID: 9, Night: "2026-03-04", Before: 10.123456, After: 12.5, Pct: 23.48, P: 0.0123},
			{Variant: "base", Metric: "ops", RunID: 8, Night: "2026-03-03", Before: 0, After: 1, Pct: 0, P: 0.5},
		},
		Trends: []trendreport.Trend{{Experiment: "rstat-relock", Variant: "relock", Metric: "hold_p50_us", Unit: "us",
			Points: []trendreport.Point{{RunID: 5, Night: "2026-03-02", Value: 10, Baseline: true}, {RunID: 9, Night: "2026-03-04", Value: 12.5}},
			Shifts: []int64{9}, Bisects: []trendreport.BisectLink{{RunID: 9, ID: 4, Text: "bisect 4", Href: "bisect-4.md"}}}},
		Notes:   []string{"relock hold_p50_us: bisect 4: culprit 333333333333 cgroup: slow (confirmed) - kregress bisect show 4"},
		Started: start.Add(time.Hour), Finished: start.Add(2 * time.Hour)}
	unjudged := &nightly.Result{Experiment: "noisy", Outcome: verdict.Unjudged, Verdict: "UNJUDGED", RunIDs: []int64{11},
		Cases: []nightly.Case{}, Shifts: []nightly.Shift{}, Error: "too few boots", Started: start, Finished: start}
	return []*nightly.Result{first, slow, unjudged}
}

// TestNightTableGolden: the night's table on stdout, byte for byte.
func TestNightTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := renderNight(goldenNight())("table", &b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "night.table.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("the table changed:\n%s", b.Bytes())
	}
}
