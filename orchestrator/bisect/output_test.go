package bisect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/verdict"
)

// testOutput is an Output into buffers.
func testOutput(asJSON bool, files ...flagkit.Output) (Output, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	return Output{Stdout: &stdout, Stderr: &stderr, JSON: asJSON, Files: files}, &stdout, &stderr
}

// bisect list prints a line per stored bisect, one that does not read
// named on its line; its JSON twin is the bisects' documents, and fails
// on one that does not read.
func TestList(t *testing.T) {
	ctx := context.Background()
	db, same, _, found := storeBisects(t)
	out, stdout, _ := testOutput(false)
	if err := List(ctx, db, 0, out); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != 3 || !strings.Contains(stdout.String(), "culprit b") {
		t.Errorf("bisect list:\n%s", stdout)
	}
	out, stdout, _ = testOutput(true)
	if err := List(ctx, db, 2, out); err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	if err := json.Unmarshal(stdout.Bytes(), &docs); err != nil || len(docs) != 2 || docs[0].ID != found.ID || docs[1].ID == same.ID {
		t.Errorf("bisect list --json --limit 2: %v\n%s", err, stdout)
	}
	bad := &results.Bisect{Experiment: "e", Status: results.RunRunning, Spec: "{", State: "{}"}
	if err := db.CreateBisect(ctx, bad); err != nil {
		t.Fatal(err)
	}
	out, stdout, _ = testOutput(false)
	if err := List(ctx, db, 0, out); err != nil || !strings.Contains(stdout.String(), "spec") {
		t.Errorf("an unreadable bisect in the list: %v\n%s", err, stdout)
	}
	out, _, _ = testOutput(true)
	if err := List(ctx, db, 0, out); err == nil {
		t.Error("bisect list --json documented an unreadable bisect")
	}
}

// bisect show prints a stored bisect and writes its culprit report into
// -o's files (never to $GITHUB_STEP_SUMMARY); its JSON twin carries the
// report, or why there is none.
func TestShow(t *testing.T) {
	ctx := context.Background()
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	db, same, _, found := storeBisects(t)
	md := filepath.Join(t.TempDir(), "r.md")
	out, stdout, stderr := testOutput(false, flagkit.Output{Format: "markdown", Path: md})
	if err := Show(ctx, db, same.ID, out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "status: complete") || !strings.Contains(stdout.String(), "bisect ") || stderr.String() != "kregress: wrote "+md+"\n" {
		t.Errorf("bisect show:\n%s\nstderr: %s", stdout, stderr)
	}
	if got, err := os.ReadFile(md); err != nil || !strings.Contains(string(got), "does not reproduce") {
		t.Errorf("-o markdown: %v\n%s", err, got)
	}
	if _, err := os.Stat(summary); !os.IsNotExist(err) {
		t.Errorf("bisect show wrote $GITHUB_STEP_SUMMARY: %v", err)
	}
	// The culprit's commit is read from a git tree there is none of.
	out, _, _ = testOutput(false, flagkit.Output{Format: "markdown", Path: md})
	if err := Show(ctx, db, found.ID, out); err == nil || !strings.Contains(err.Error(), "git") {
		t.Errorf("a report without its tree: %v", err)
	}
	out, stdout, _ = testOutput(true)
	var doc Doc
	if err := Show(ctx, db, found.ID, out); err != nil || json.Unmarshal(stdout.Bytes(), &doc) != nil || doc.ID != found.ID || doc.ReportError == "" {
		t.Errorf("bisect show --json: %v\n%s", err, stdout)
	}
	if err := Show(ctx, db, 99, out); err == nil {
		t.Error("showed a missing bisect")
	}
}

// The culprit report is written into every -o file and, for a bisect
// that ran (summary), appended to $GITHUB_STEP_SUMMARY; with nowhere to
// write it, it is not built (building it reads the git tree).
func TestWriteReports(t *testing.T) {
	ctx := context.Background()
	db, _, _, _ := storeBisects(t)
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	noTree := &Ended{ID: 3, Spec: &Spec{Metric: "m", GitTree: "/nonexistent", Names: []string{"g", "b"}}, Result: &Result{Reproduced: true, Culprit: "b"}}
	out, _, stderr := testOutput(false)
	if err := out.WriteReports(ctx, db, noTree, true); err != nil || stderr.Len() != 0 {
		t.Errorf("nowhere to write, it built the report: %v %s", err, stderr)
	}
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	if err := out.WriteReports(ctx, db, noTree, true); err == nil {
		t.Error("a report that cannot be built was written")
	}
	stopped := &Ended{ID: 4, Spec: &Spec{Metric: "m", Good: "g", Bad: "b", Names: []string{"g", "b"}}, Err: errors.New("host gone")}
	files := []flagkit.Output{{Format: "markdown", Path: filepath.Join(dir, "r.md")}, {Format: "json", Path: filepath.Join(dir, "r.json")}}
	out, _, stderr = testOutput(false, files...)
	if err := out.WriteReports(ctx, db, stopped, true); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(files[0].Path)
	js, _ := os.ReadFile(files[1].Path)
	sum, _ := os.ReadFile(summary)
	if !strings.Contains(string(md), "## kregress bisect 4: m: stopped: host gone") || !json.Valid(js) || string(sum) != string(md) {
		t.Errorf("reports:\nmarkdown %s\njson %s\nsummary %s", md, js, sum)
	}
	if strings.Count(stderr.String(), "kregress: wrote ") != 2 {
		t.Errorf("stderr: %s", stderr)
	}
	// Without summary (bisect show), $GITHUB_STEP_SUMMARY is left alone.
	if err := out.WriteReports(ctx, db, stopped, false); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(summary); string(again) != string(sum) {
		t.Errorf("summary appended without summary:\n%s", again)
	}
}

// A step that cannot measure says why on stderr and exits 128, which
// stops git bisect run, without opening the store when the request is
// refused.
func TestStepRequestRunAborts(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kernel.GitTree = "/linux"
	opened := 0
	ports := StepPorts{Open: func(context.Context, string) (results.Store, error) { opened++; return nil, errors.New("store locked") },
		Report: func(string, ...any) {}}
	for _, c := range []struct {
		req    StepRequest
		want   string
		opened int
	}{
		{StepRequest{Good: "g", Bad: "b", RepsText: RepsString(DefaultReps), Alpha: 0.05}, "kregress bisect step: give --good, --bad, --metric", 0},
		{StepRequest{Good: "g", Bad: "b", Metric: "m", RepsText: RepsString(DefaultReps), Alpha: 0}, "--alpha 0", 0},
		{StepRequest{Good: "g", Bad: "b", Metric: "m", RepsText: RepsString(DefaultReps), Alpha: 0.05}, "kregress bisect step: store locked", 1},
	} {
		opened = 0
		out, stdout, stderr := testOutput(false)
		err := c.req.Run(context.Background(), cfg, ports, out)
		if verdict.ExitOf(err) != verdict.ExitStepAbort || !strings.Contains(stderr.String(), c.want) || stdout.Len() != 0 || opened != c.opened {
			t.Errorf("%+v: exit %d, opened %d, stdout %q, stderr %q; want 128 and %q", c.req, verdict.ExitOf(err), opened, stdout, stderr, c.want)
		}
	}
}
