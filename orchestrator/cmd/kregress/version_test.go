package main

import (
	"bytes"
	"strings"
	"testing"

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

// -q is a flag of every command (what it drops: internal/progress's
// TestQuietDropsProgress).
func TestQuietFlag(t *testing.T) {
	if _, err := runInProcess("version", "-q"); err != nil {
		t.Fatalf("version -q: %v", err)
	}
}
