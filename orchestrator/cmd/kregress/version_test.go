package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/results/verdict"
)

// runInProcess executes a fresh command tree with args and returns its
// stdout (cobra's output: help, version) and error.
func runInProcess(args ...string) (string, error) {
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// A binary built without make (go build, go test) says what it is, never
// just "dev"; version and --version agree; -v is not version.
func TestVersion(t *testing.T) {
	out, err := runInProcess("version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "kregress ") || strings.TrimSpace(out) == "kregress dev" || !strings.Contains(out, "go1.") {
		t.Fatalf("version: %q", out)
	}
	flag, err := runInProcess("--version")
	if err != nil || flag != out {
		t.Fatalf("--version %q (%v), version %q", flag, err, out)
	}
	if _, err := runInProcess("-v"); err == nil || verdict.ExitOf(err) != verdict.ExitUsage {
		t.Fatalf("-v: %v, want a usage error (it is not --version)", err)
	}
}

// -q, given to any command, drops that command's progress lines and
// keeps its warnings (how the reporter drops them: internal/progress's
// TestQuietDropsProgress).
func TestQuietFlag(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		root := newRoot()
		root.AddCommand(&cobra.Command{Use: "talk", RunE: func(cmd *cobra.Command, _ []string) error {
			report := reporter(cmd)
			report("building %s", "kernel")
			report("%v", progress.Warning("the baseline has no selftests"))
			return nil
		}})
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	loud := run("talk")
	if !strings.Contains(loud, "building kernel") || !strings.Contains(loud, "the baseline has no selftests") {
		t.Fatalf("without -q: %q, want the progress line and the warning", loud)
	}
	for _, args := range [][]string{{"talk", "-q"}, {"-q", "talk"}, {"talk", "--quiet"}} {
		out := run(args...)
		if strings.Contains(out, "building kernel") || !strings.Contains(out, "the baseline has no selftests") {
			t.Errorf("%v: %q, want the warning alone", args, out)
		}
	}
	if out := run("talk"); !strings.Contains(out, "building kernel") {
		t.Errorf("after a -q run, a run without it: %q, want progress again", out)
	}
}
