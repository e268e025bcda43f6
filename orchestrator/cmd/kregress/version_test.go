package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/pipeline"
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
	if _, err := runInProcess("-v"); err == nil || exitStatus(err) != verdict.ExitUsage {
		t.Fatalf("-v: %v, want a usage error (it is not --version)", err)
	}
}

// --quiet really quiets the progress lines; without it they appear.
func TestQuietDropsProgress(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var loud, hushed bytes.Buffer
		reporterTo(&loud, terminal, false)("building %s", "stock")
		reporterTo(&hushed, terminal, true)("building %s", "stock")
		if !strings.Contains(loud.String(), "building stock") || hushed.Len() != 0 {
			t.Errorf("terminal %v: loud %q, quiet %q", terminal, loud.String(), hushed.String())
		}
	}
	// A warning changes what the verdict is about: -q does not hide it
	// (hostile audit: the fallback primary metric was a progress line).
	for _, terminal := range []bool{true, false} {
		var hushed bytes.Buffer
		reporterTo(&hushed, terminal, true)("%s", pipeline.Warning("primary metric: b instead of a"))
		if !strings.Contains(hushed.String(), "primary metric: b instead of a") {
			t.Errorf("terminal %v: quiet dropped the warning: %q", terminal, hushed.String())
		}
	}
	if _, err := runInProcess("version", "-q"); err != nil {
		t.Fatalf("version -q: %v", err)
	}
}
