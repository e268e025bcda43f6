package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bare argument to run is refused naming the flag it was meant for, by
// what it is: an experiment goes with -c, a patch with --patch.
func TestRunBareArgumentSuggestsTheFlag(t *testing.T) {
	dir := isolate(t)
	t.Chdir(dir)
	files := map[string]string{
		"my-branch.yaml": "experiment: mine\n",
		"0001-fix.patch": "From abc Mon Sep 17 00:00:00 2001\nSubject: [PATCH] fix\n",
		"fix":            "diff --git a/x b/x\n--- a/x\n+++ b/x\n",
		"mine":           "experiment: mine\nfamily: quick\n",
		"notes.txt":      "hello\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "outgoing"), 0o755); err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]string{
		"my-branch.yaml": "give it with -c: kregress run -c my-branch.yaml",
		"mine":           "give it with -c: kregress run -c mine",
		"hackbench":      "give it with -c: kregress run -c hackbench",
		"0001-fix.patch": "give it with --patch: kregress run --patch 0001-fix.patch",
		"fix":            "give it with --patch: kregress run --patch fix",
		"outgoing":       "give it with --patch: kregress run --patch outgoing",
		"notes.txt":      "an experiment (a built-in name or a YAML file) goes with -c FILE, a patch with --patch FILE",
		"no-such-thing":  "an experiment (a built-in name or a YAML file) goes with -c FILE, a patch with --patch FILE",
	} {
		out, err := inProcess(t, nil, "run", arg)
		if code := exitCodeOf(err); code != 2 || !strings.Contains(out, want) || strings.Contains(out, "unknown command") {
			t.Errorf("kregress run %s: exit %d, want 2 saying %q:\n%s", arg, code, want, out)
		}
	}
}

// A mistyped flag of a real command gets a "did you mean".
func TestRunFlagTypoSuggests(t *testing.T) {
	isolate(t)
	out, err := inProcess(t, nil, "run", "--repetiton", "4")
	if exitCodeOf(err) != 2 || !strings.Contains(out, "did you mean --repetitions?") {
		t.Fatalf("run --repetiton 4: exit %d:\n%s", exitCodeOf(err), out)
	}
}

// On a fresh host (the default store, nothing run yet) results list and
// runs list nothing and exit 0, and create nothing; a store named by the
// user that does not exist is still refused (a typo, exit 2).
func TestFreshHostListsNothing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KREGRESS_STORE", "")
	os.Unsetenv("KREGRESS_STORE")
	t.Setenv("KREGRESS_RESULTS_DIR", filepath.Join(dir, "results"))
	t.Setenv("KREGRESS_CACHE_DIR", filepath.Join(dir, "cache"))
	for _, args := range [][]string{{"results", "list"}, {"runs"}, {"runs", "--json"}} {
		out, err := inProcess(t, nil, args...)
		if err != nil || strings.Contains(out, "no results store") {
			t.Errorf("%v on a fresh host: %v:\n%s", args, err, out)
		}
		if args[len(args)-1] == "--json" && strings.TrimSpace(out) != "[]" {
			t.Errorf("%v: %q, want []", args, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); err == nil {
		t.Fatal("listing created the results directory")
	}
	out, err := inProcess(t, nil, "runs", "--store", filepath.Join(dir, "typo.db"))
	if exitCodeOf(err) != 2 || !strings.Contains(out, "no results store at") {
		t.Fatalf("runs --store typo.db: exit %d:\n%s", exitCodeOf(err), out)
	}
}

// diff of a directory or an experiment's YAML says it is no set before
// looking for a store (a fresh host has none).
func TestDiffOfNoSetSaysSo(t *testing.T) {
	dir := isolate(t)
	yaml := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(yaml, []byte("experiment: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]string{dir: "is a directory, not a set to compare", yaml: "is a file, not a set to compare"} {
		out, err := inProcess(t, nil, "diff", arg)
		if exitCodeOf(err) != 2 || !strings.Contains(out, want) || strings.Contains(out, "no results store") {
			t.Errorf("diff %s: exit %d, want 2 saying %q:\n%s", arg, exitCodeOf(err), want, out)
		}
	}
}
