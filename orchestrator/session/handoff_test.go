package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/store/storetest"
)

// A stored bisect of the same search is found again (nightly --bisect
// resumes it); another metric, variant, range or kind is not.
func TestFindBisect(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	spec := &bisect.Spec{Experiment: "/e.yaml", GitTree: "/linux", Good: "aaaa", Bad: "bbbb", Names: []string{"a", "m", "b"}, Metric: "m1", Variant: "v"}
	data, _ := json.Marshal(spec)
	b := &results.Bisect{Experiment: "e", Status: results.RunComplete, Spec: string(data), State: "{}"}
	if err := db.CreateBisect(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(s *bisect.Spec)
		want int64
	}{
		{func(*bisect.Spec) {}, b.ID},
		{func(s *bisect.Spec) { s.Metric = "m2" }, 0},
		{func(s *bisect.Spec) { s.Variant = "w" }, 0},
		{func(s *bisect.Spec) { s.Names = []string{"a", "c"} }, 0},
		{func(s *bisect.Spec) { s.Crash = true }, 0},
	} {
		s := *spec
		tc.edit(&s)
		if got, err := findBisect(ctx, db, &s); err != nil || got != tc.want {
			t.Errorf("found %d, want %d (%v)", got, tc.want, err)
		}
	}
}

func TestCacheKey(t *testing.T) {
	if a, b := CacheKey("x"), CacheKey("y"); len(a) != 12 || a == b || a != CacheKey("x") {
		t.Fatalf("CacheKey: %q %q", a, b)
	}
}

// Handoffs reports a bisect that could not start and goes on to the
// next, links none of them, and starts none once ctx is cancelled.
func TestHandoffsReportFailuresAndStop(t *testing.T) {
	h1 := &nightreport.Handoff{Experiment: "one", Kind: nightreport.KindMetric, Metric: "m", Good: "g", Bad: "b", Command: "kregress bisect -c one"}
	h2 := &nightreport.Handoff{Experiment: "two", Kind: nightreport.KindMetric, Metric: "m", Good: "g", Bad: "b", Command: "kregress bisect -c two"}
	night := []*nightreport.Result{{Experiment: "one", Cases: []nightreport.Case{{Name: "m", Bisect: h1}, {Name: "m2", Bisect: h2}}}}
	var said []string
	s := &Session{Report: func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }}
	load := func(e string) (*config.Config, error) { return nil, errors.New("no experiment " + e) }
	var stdout, stderr bytes.Buffer
	out := HandoffOutput{Stdout: &stdout, Stderr: &stderr, ReportDir: t.TempDir()}
	s.Handoffs(context.Background(), load, night, out)
	want := []string{"=== nightly --bisect: kregress bisect -c one", "nightly --bisect: kregress bisect -c one: no experiment one",
		"=== nightly --bisect: kregress bisect -c two", "nightly --bisect: kregress bisect -c two: no experiment two"}
	if strings.Join(said, "\n") != strings.Join(want, "\n") {
		t.Errorf("reported:\n%s\nwant:\n%s", strings.Join(said, "\n"), strings.Join(want, "\n"))
	}
	if h1.BisectID != 0 || h2.BisectID != 0 {
		t.Errorf("linked a bisect that never ran: %d %d", h1.BisectID, h2.BisectID)
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("showed a bisect that never started:\n%s%s", stdout.String(), stderr.String())
	}
	said = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Handoffs(ctx, load, night, out)
	if len(said) != 0 {
		t.Errorf("cancelled, it still handed off: %q", said)
	}
}

// A handed-off bisect is printed as kregress bisect prints it, its
// culprit report appended to $GITHUB_STEP_SUMMARY and, when the night
// writes an HTML page, written beside it as bisect-ID.md, which the page
// links; a report that cannot be written is reported and not linked.
func TestShowHandoff(t *testing.T) {
	db := storetest.SQLite(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	var said []string
	s := &Session{Store: db, Report: func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }}
	stopped := &bisect.Ended{ID: 5, Spec: &bisect.Spec{Metric: "m", Good: "g", Bad: "b", Names: []string{"g", "b"}}, Err: errors.New("host gone")}
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	if href := s.showHandoff(stopped, HandoffOutput{Stdout: &stdout, Stderr: &stderr, ReportDir: dir}); href != "bisect-5.md" {
		t.Errorf("link %q, want bisect-5.md", href)
	}
	md, err := os.ReadFile(filepath.Join(dir, "bisect-5.md"))
	if err != nil || !strings.Contains(string(md), "## kregress bisect 5: m: stopped: host gone") {
		t.Errorf("bisect-5.md: %v\n%s", err, md)
	}
	if sum, _ := os.ReadFile(summary); string(sum) != string(md) {
		t.Errorf("$GITHUB_STEP_SUMMARY:\n%s\nwant the report's Markdown:\n%s", sum, md)
	}
	if !strings.HasPrefix(stdout.String(), "bisect 5: m from g to b") || stderr.String() != "kregress: wrote "+filepath.Join(dir, "bisect-5.md")+"\n" {
		t.Errorf("printed:\n%s\nstderr: %s", stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if href := s.showHandoff(stopped, HandoffOutput{Stdout: &stdout, Stderr: &stderr}); href != "" || stderr.Len() != 0 || stdout.Len() == 0 {
		t.Errorf("without an HTML page: link %q, stderr %q", href, stderr.String())
	}
	noTree := &bisect.Ended{ID: 6, Spec: &bisect.Spec{Metric: "m", GitTree: "/nonexistent", Names: []string{"g", "b"}}, Result: &bisect.Result{Reproduced: true, Culprit: "b"}}
	if href := s.showHandoff(noTree, HandoffOutput{Stdout: &stdout, Stderr: &stderr, ReportDir: dir}); href != "" ||
		len(said) != 1 || !strings.HasPrefix(said[0], "nightly --bisect: bisect 6's report: ") {
		t.Errorf("a report that cannot be built: link %q, reported %q", href, said)
	}
}

// The night's bisect reports go beside its HTML page, and nowhere
// without one.
func TestNightlyHandoffOutput(t *testing.T) {
	nn := &Nightly{Files: []flagkit.Output{{Format: "json", Path: "/a/night.json"}, {Format: "html", Path: "/b/c/night.html"}}}
	if out := nn.handoffOutput(); out.ReportDir != "/b/c" {
		t.Errorf("report dir %q, want /b/c", out.ReportDir)
	}
	nn.Files = nn.Files[:1]
	if out := nn.handoffOutput(); out.ReportDir != "" {
		t.Errorf("report dir %q without an HTML page", out.ReportDir)
	}
}
