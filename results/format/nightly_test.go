package format

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/trendreport"
	"github.com/kregress/kregress/results/verdict"
)

// goldenNight is a night with every part its reports render: a first
// night, a regression handed off (one bisected, one without a range), an
// error with a long log, a skipped metric, shifts, notes and trends.
func goldenNight() []*nightreport.Result {
	start := time.Date(2026, 3, 4, 1, 2, 3, 0, time.UTC)
	long := ""
	for i := 1; i <= 40; i++ {
		long += fmt.Sprintf("console line %d\n", i)
	}
	first := &nightreport.Result{Experiment: "pcpu-execve", Outcome: verdict.FirstNight, RunIDs: []int64{7},
		Commit: "0123456789abcdef0123456789abcdef01234567", Describe: "v6.9-rc1-12-g0123456789ab", ConfigSHA: "c0ffee",
		Cases: []nightreport.Case{}, Shifts: []nightreport.Shift{}, Notes: []string{"no good night of this experiment yet: tonight is its baseline"},
		Started: start, Finished: start.Add(90 * time.Second)}
	h := &nightreport.Handoff{Experiment: "/e/rstat.yaml", Variant: "relock", Kind: nightreport.KindMetric, Metric: "hold_p50_us",
		Good: "1111111111111111111111111111111111111111", Bad: "2222222222222222222222222222222222222222", Commits: 3,
		Command:  "kregress bisect -c /e/rstat.yaml --good 111111111111 --bad 222222222222 --variant relock --metric hold_p50_us",
		BisectID: 4, Culprit: "333333333333 cgroup: slow", Confirmation: "confirmed"}
	crash := &nightreport.Handoff{Experiment: "/e/rstat.yaml", Variant: "relock", Kind: nightreport.KindKernelReport,
		NoRange: "kernel.git_tree is not set: no repository to count and bisect the commits in"}
	one := &nightreport.Handoff{Experiment: "/e/rstat.yaml", Variant: "base", Kind: nightreport.KindSelftests, Good: h.Good, Bad: h.Bad, Commits: 1,
		Command: "kregress bisect -c /e/rstat.yaml --crash", Note: "a crash bisect counts a kernel report only when it fails the kernel"}
	slow := &nightreport.Result{Experiment: "rstat-relock", Outcome: verdict.NightRegression, RunIDs: []int64{9, 10},
		BaselineID: 5, Baseline: "good night", Commit: h.Bad, Describe: "v6.9-rc2", ConfigSHA: "beef",
		Cases: []nightreport.Case{
			{Variant: "base", Name: "hold_p50_us", Status: nightreport.CasePass, Message: "~ +0.3%: could see a change of 4.0%"},
			{Variant: "base", Name: "ops", Status: nightreport.CasePass, Message: "~"},
			{Variant: "base", Name: "note", Status: nightreport.CasePass},
			{Variant: "relock", Name: "hold_p50_us", Status: nightreport.CaseFailure, Message: "+25.0% (q=0.001)", Detail: "10.0 -> 12.5 us", Kind: nightreport.KindMetric,
				Metric: &compare.Change{Name: "hold_p50_us", Base: 10, Cand: 12.5, DeltaPct: 25, P: 0.001, Q: 0.001, N1: 8, N2: 8, MDEPct: 4}, Bisect: h},
			{Variant: "relock", Name: "kernel reports", Status: nightreport.CaseFailure, Message: "new WARNING in rstat_flush", Kind: nightreport.KindKernelReport, Bisect: crash},
			{Variant: "base", Name: "selftests", Status: nightreport.CaseFailure, Message: "cgroup:test_core fails", Kind: nightreport.KindSelftests, Bisect: one},
			{Variant: "relock", Name: "boot", Status: nightreport.CaseError, Message: "1 of 8 boots crashed", Detail: long},
			{Variant: "relock", Name: "same", Status: nightreport.CaseError, Message: "same text", Detail: "same text"},
			{Variant: "base", Name: "ops_p99", Status: nightreport.CaseSkipped, Message: "unjudged: 3 ok boots <reach> alpha & more"},
			{Name: "infra", Status: nightreport.CaseSkipped, Message: "no variant"},
		},
		Shifts: []nightreport.Shift{
			{Variant: "relock", Metric: "hold_p50_us", RunID: 9, Night: "2026-03-04", Before: 10.123456, After: 12.5, Pct: 23.48, P: 0.0123},
			{Variant: "base", Metric: "ops", RunID: 8, Night: "2026-03-03", Before: 0, After: 1, Pct: 0, P: 0.5},
		},
		Trends: []trendreport.Trend{{Experiment: "rstat-relock", Variant: "relock", Metric: "hold_p50_us", Unit: "us",
			Points: []trendreport.Point{{RunID: 5, Night: "2026-03-02", Value: 10, Baseline: true}, {RunID: 9, Night: "2026-03-04", Value: 12.5}},
			Shifts: []int64{9}, Bisects: []trendreport.BisectLink{{RunID: 9, ID: 4, Text: "bisect 4", Href: "bisect-4.md"}}}},
		Notes:   []string{"relock hold_p50_us: bisect 4: culprit 333333333333 cgroup: slow (confirmed) - kregress bisect show 4"},
		Started: start.Add(time.Hour), Finished: start.Add(2 * time.Hour)}
	unjudged := &nightreport.Result{Experiment: "noisy", Outcome: verdict.NightUnjudged, RunIDs: []int64{11},
		Cases: []nightreport.Case{}, Shifts: []nightreport.Shift{}, Error: "too few boots", Started: start, Finished: start}
	return []*nightreport.Result{first, slow, unjudged}
}

// TestNightGolden: each format of the night, byte for byte.
func TestNightGolden(t *testing.T) {
	for name, write := range map[string]func(io.Writer, []*nightreport.Result) error{
		"night.junit.golden": WriteNightJUnit, "night.md.golden": WriteNightMarkdown,
		"night.json.golden": WriteNightJSON, "night.html.golden": WriteNightHTML,
		"night.table.golden": func(w io.Writer, night []*nightreport.Result) error { return WriteNight(w, NightTable, night) },
	} {
		var b bytes.Buffer
		if err := write(&b, goldenNight()); err != nil {
			t.Fatal(err)
		}
		testfile.Golden(t, filepath.Join("testdata", name), b.String())
	}
	// A first night alone, and an empty night.
	var b bytes.Buffer
	WriteNightMarkdown(&b, goldenNight()[:1])
	WriteNightMarkdown(&b, nil)
	WriteNightJSON(&b, nil)
	testfile.Golden(t, filepath.Join("testdata", "night.first.golden"), b.String())
	if !strings.Contains(b.String(), "first night") {
		t.Fatalf("first night:\n%s", b.String())
	}
}

// The Markdown summary of an unjudged night names the unjudged metric
// (before, it listed only failures and errors, so the summary said
// UNJUDGED without saying what).
func TestMarkdownNamesUnjudgedMetric(t *testing.T) {
	r := &nightreport.Result{Experiment: "rstat-every-n", Outcome: verdict.NightUnjudged,
		Cases: []nightreport.Case{{Variant: "per-cpu-relock", Name: "rstat_lock_hold_p50_us", Status: nightreport.CaseSkipped,
			Message: "unjudged: rstat_lock_hold_p50_us +900.0% (p=0.100, q=0.700, n=3+3)"}}}
	var b strings.Builder
	if err := WriteNightMarkdown(&b, []*nightreport.Result{r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "per-cpu-relock rstat_lock_hold_p50_us: unjudged:") {
		t.Fatalf("markdown does not name the unjudged metric:\n%s", b.String())
	}
}

// A summary over GitHub's 1 MiB limit is cut below it, and says where
// the whole night is.
func TestNightMarkdownCutAtSummaryLimit(t *testing.T) {
	note := strings.Repeat("x", 1000)
	r := &nightreport.Result{Experiment: "e", Outcome: verdict.NightPass}
	for len(r.Notes)*len(note) < summaryLimit {
		r.Notes = append(r.Notes, note)
	}
	var b strings.Builder
	if err := WriteNightMarkdown(&b, []*nightreport.Result{r}); err != nil {
		t.Fatal(err)
	}
	const tail = "\n\n(cut at GitHub's 1 MiB summary limit; the JSON and JUnit outputs are complete)\n"
	if !strings.HasSuffix(b.String(), tail) || b.Len() != summaryLimit-200+len(tail) {
		t.Fatalf("%d bytes, ending %q", b.Len(), b.String()[b.Len()-120:])
	}
}

// baseline list prints a mark per line, its time in local time.
func TestWriteMarks(t *testing.T) {
	at := time.Date(2026, 3, 4, 1, 2, 3, 0, time.Local)
	var b bytes.Buffer
	WriteMarks(&b, []nightreport.MarkRow{
		{RunID: 41, Kind: "accepted", At: at, Who: "jane", Reason: "intended: relock merged"},
		{RunID: 40, Kind: "good", At: at.Add(-24 * time.Hour), Who: "ci@host", Reason: "first night"},
	})
	want := "run 41\taccepted\t2026-03-04 01:02\tjane\tintended: relock merged\n" +
		"run 40\tgood\t2026-03-03 01:02\tci@host\tfirst night\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// Names lists any kind of format as the strings a flag takes.
func TestNames(t *testing.T) {
	if got := strings.Join(Names(NightFiles...), ","); got != "junit,markdown,json,html" {
		t.Errorf("night: %s", got)
	}
	if got := strings.Join(Names(Table, CSV), ","); got != "table,csv" {
		t.Errorf("diff: %s", got)
	}
}

// NightWriter renders the format an output names, and refuses one that
// is not a night's.
func TestNightWriter(t *testing.T) {
	var got, want bytes.Buffer
	if err := NightWriter(goldenNight())("markdown", &got); err != nil {
		t.Fatal(err)
	}
	if err := WriteNightMarkdown(&want, goldenNight()); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || got.Len() == 0 {
		t.Errorf("markdown:\n%s\nwant\n%s", got.String(), want.String())
	}
	if err := NightWriter(goldenNight())("csv", io.Discard); err == nil {
		t.Error("a night rendered as csv")
	}
}
