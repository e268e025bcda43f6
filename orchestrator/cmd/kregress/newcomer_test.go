package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A thing the user named that does not exist (a run, a bisect, an export
// file, a ref) is their mistake: exit 2 with a sentence naming it and
// where to look, as the README promises (each used to exit 1).
func TestMissingThingsExit2(t *testing.T) {
	store := seed(t)
	repo := tinyRepo(t)
	exp := filepath.Join(t.TempDir(), "c.yaml")
	// init checks its refs; a file naming one the tree lost since is
	// the dry run's to refuse, in the same words.
	mustRun(t, store, "init", exp, "--kernel.git-tree", repo, "--base", "one", "--candidate", "two")
	text, err := os.ReadFile(exp)
	if err != nil || !strings.Contains(string(text), "ref: two") {
		t.Fatalf("init's file: %v\n%s", err, text)
	}
	if err := os.WriteFile(exp, []byte(strings.Replace(string(text), "ref: two", "ref: nosuch", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	unchecked := filepath.Join(t.TempDir(), "d.yaml")
	missing := filepath.Join(t.TempDir(), "a.json")
	for _, tc := range []struct {
		args []string
		says []string
	}{
		{[]string{"results", "show", "99"}, []string{"no run 99", "kregress results list"}},
		{[]string{"diff", "99"}, []string{"no run 99"}},
		{[]string{"diff", missing + "#stock", missing + "#stock"}, []string{missing + ": no such file", "results export"}},
		{[]string{"bisect", "--resume", "3"}, []string{"no bisect 3", "kregress bisect list"}},
		{[]string{"run", "-c", exp, "--dry-run"}, []string{`has no commit "nosuch"`}},
		{[]string{"init", unchecked, "--kernel.git-tree", repo, "--candidate", "nosuch"}, []string{`--candidate nosuch`, `has no commit "nosuch"`}},
	} {
		out, err := kregress(t, store, tc.args...)
		if code := exitCodeOf(err); code != 2 {
			t.Errorf("kregress %s: exit %d, want 2:\n%s", strings.Join(tc.args, " "), code, out)
		}
		for _, s := range tc.says {
			if !strings.Contains(out, s) {
				t.Errorf("kregress %s does not say %q:\n%s", strings.Join(tc.args, " "), s, out)
			}
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("diff created the missing file")
	}
	if _, err := os.Stat(unchecked); err == nil {
		t.Error("init wrote a file naming a ref the tree does not have")
	}
}

// A mistyped variable is warned about, naming the one meant, and the
// command still runs; a bad value of a real one is refused in words.
func TestMistypedEnvIsWarned(t *testing.T) {
	isolate(t)
	out, err := inProcess(t, []string{"KREGRESS_VM_CPU=4"}, "config")
	if err != nil || !strings.Contains(out, "warning: KREGRESS_VM_CPU is set but no configuration key reads it: ignored (did you mean KREGRESS_VM_CPUS?)") {
		t.Errorf("KREGRESS_VM_CPU=4 kregress config: %v\n%s", err, out)
	}
	t.Setenv("KREGRESS_VM_CPU", "")
	os.Unsetenv("KREGRESS_VM_CPU")
	out, err = inProcess(t, []string{"KREGRESS_REPETITIONS=abc"}, "config")
	if exitCodeOf(err) != 2 || !strings.Contains(out, `KREGRESS_REPETITIONS: key repetitions: "abc" is not a whole number`) || strings.Contains(out, "strconv") {
		t.Errorf("KREGRESS_REPETITIONS=abc kregress config: %v\n%s", err, out)
	}
}

// A command that fails on what the user gave creates nothing first:
// results import of a missing file made the store's directory and an
// empty database; nightly of an unknown experiment made the default
// store (and listed the built-in experiments twice).
func TestNothingCreatedBeforeFailing(t *testing.T) {
	dir := isolate(t)
	t.Chdir(dir)
	out, err := inProcess(t, nil, "results", "import", "x.json", "--store", "nodir/k.db")
	if exitCodeOf(err) != 2 || !strings.Contains(out, "x.json") {
		t.Errorf("import of a missing file: exit %d\n%s", exitCodeOf(err), out)
	}
	out, err = inProcess(t, nil, "nightly", "nosuch")
	if exitCodeOf(err) != 2 || strings.Count(out, "rstat-relock-icount-1cpu") != 1 {
		t.Errorf("nightly nosuch: exit %d, want 2 and the built-in experiments listed once\n%s", exitCodeOf(err), out)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("the refused commands left %v in %s", names, dir)
	}
}

// What the README shows works: diff --json is -f json, --older-than
// takes days, run --help shows the configuration keys' defaults.
func TestSecondHourSurprises(t *testing.T) {
	store := seed(t)
	if j, f := mustRun(t, store, "diff", "1", "--json"), mustRun(t, store, "diff", "1", "-f", "json"); j != f || !strings.HasPrefix(strings.TrimSpace(j), "{") {
		t.Errorf("diff --json:\n%s\nwant diff -f json's:\n%s", j, f)
	}
	if out, err := kregress(t, store, "diff", "1", "--json", "-f", "table"); exitCodeOf(err) != 2 {
		t.Errorf("--json with -f table: exit %d\n%s", exitCodeOf(err), out)
	}
	if out := mustRun(t, store, "results", "prune", "--older-than", "30d", "--dry-run"); strings.Contains(out, "invalid") {
		t.Errorf("--older-than 30d:\n%s", out)
	}
	help := mustRun(t, store, "run", "--help")
	for _, want := range []string{"--repetitions int", "(default 5)", `--vm.accel string`, `(default "auto")`, `--kernel.fragments strings`, "(default [guest.config])"} {
		if !strings.Contains(help, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
}

// Completion offers what is cheap to know: experiments, workloads and
// metrics; the root help lists man.
func TestCompletionAndManListed(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "nightly", ""}, "rstat-relock-icount-1cpu\n"},
		{[]string{"__complete", "run", "-c", ""}, "cpuset-attach\n"},
		{[]string{"__complete", "bisect", "--metric", ""}, "rstat_lock_hold_p99_us\n"},
		{[]string{"__complete", "run", "--primary-metrics", ""}, "reads_per_sec\n"},
		{[]string{"__complete", "run", "--workload.name", ""}, "lru-drain\n"},
		{[]string{"__complete", "metrics", ""}, "execve\n"},
		{[]string{"__complete", "diff", "--noise-floor-pct", ""}, "reads_per_sec=\n"},
		{[]string{"__complete", "run", "--noise-floor-pct", ""}, "rstat_lock_hold_p99_us=\n"},
		{[]string{"__complete", "results", "list", "--experiment", ""}, "lru-drain\n"},
		{[]string{"__complete", "runs", "--experiment", ""}, "rstat-relock\n"},
		{[]string{"--help"}, "\n  man "},
	} {
		if out, err := runInProcess(c.args...); err != nil || !strings.Contains(out, c.want) {
			t.Errorf("kregress %s: %v, want %q in:\n%s", strings.Join(c.args, " "), err, c.want, out)
		}
	}
}
