package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/verdict"
)

func findCommand(t *testing.T, path ...string) *cobra.Command {
	t.Helper()
	c, _, err := newRoot().Find(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every configuration key is a flag named as the key (dashes for
// underscores) on the commands that run or resolve an experiment, and
// the flag sets that key.
func TestEveryConfigKeyIsAFlag(t *testing.T) {
	for _, path := range [][]string{{"run"}, {"build"}, {"config"}, {"doctor"}} {
		c := findCommand(t, path...)
		for _, k := range config.Keys() {
			f := c.Flags().Lookup(config.FlagFor(k))
			if f == nil {
				f = c.InheritedFlags().Lookup(config.FlagFor(k))
			}
			if f == nil {
				t.Errorf("kregress %s has no flag --%s for key %s", strings.Join(path, " "), config.FlagFor(k), k)
				continue
			}
			if got := f.Annotations[config.FlagAnnotation]; len(got) != 1 || got[0] != k {
				t.Errorf("--%s is not marked as key %s: %v", f.Name, k, got)
			}
		}
	}
}

// One name for boots per variant, and --resume takes the id it resumes.
func TestOneNamePerConcept(t *testing.T) {
	for _, path := range [][]string{{"run"}, {"nightly"}, {"bisect"}, {"bisect", "step"}, {"seeds"}, {"noise"}} {
		if findCommand(t, path...).Flags().Lookup("repetitions") == nil {
			t.Errorf("kregress %s has no --repetitions", strings.Join(path, " "))
		}
	}
	for path, typ := range map[string]string{"run": "int64", "bisect": "int64", "nightly": "int64Slice"} {
		f := findCommand(t, path).Flags().Lookup("resume")
		if f == nil || f.Value.Type() != typ || f.NoOptDefVal != "" {
			t.Errorf("kregress %s --resume: %+v, want a %s run id", path, f, typ)
		}
	}
}

// The old spellings still work, are hidden, and warn.
func TestDeprecatedSpellings(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		old  string
		want string // in the resolved configuration
	}{
		{[]string{"config", "--workload", "execve"}, "--workload", "name: execve"},
		{[]string{"config", "--fuzz", "2"}, "--fuzz", "fuzz: 2"},
		{[]string{"config", "--allow-dirty"}, "--allow-dirty", "allow_dirty: true"},
		{[]string{"config", "--parallel", "1", "--executor", "local"}, "--executor", "kind: local"},
		{[]string{"config", "--gate_only"}, "", "gate_only: true"}, // the key's own spelling: no warning
		{[]string{"config", "--vm.memory_mb", "2048"}, "", "memory_mb: 2048"},
	} {
		stdout, stderr, err := runSplit(c.args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, stderr)
		}
		if !strings.Contains(stdout, c.want) {
			t.Errorf("%v: the configuration lacks %q", c.args, c.want)
		}
		// In-process, cobra prints the warning on the out writer (the
		// binary leaves that unset: stderr; see execute).
		warned := strings.Contains(stdout+stderr, "has been deprecated, use --")
		if warned != (c.old != "") {
			t.Errorf("%v: deprecation warning %v: %q", c.args, warned, stderr)
		}
	}
	run := findCommand(t, "run")
	for _, old := range []string{"workload", "fuzz", "allow-dirty", "executor", "parallel", "detach"} {
		if f := run.Flags().Lookup(old); f == nil || !f.Hidden || f.Deprecated == "" {
			t.Errorf("run --%s: %+v, want a hidden deprecated alias", old, f)
		}
	}
	for path, olds := range map[string][]string{"bisect": {"reps", "git-tree"}, "nightly": {"git-tree"}, "noise": {"boots"}} {
		for _, old := range olds {
			if f := findCommand(t, path).Flags().Lookup(old); f == nil || !f.Hidden || f.Deprecated == "" {
				t.Errorf("%s --%s: %+v, want a hidden deprecated alias", path, old, f)
			}
		}
	}
}

// nightly --resume names a run; one the night would not resume is
// refused before anything runs.
func TestNightlyResumeTakesARun(t *testing.T) {
	store := seed(t)
	t.Setenv("KREGRESS_STORE", store)
	t.Setenv("KREGRESS_CACHE_DIR", t.TempDir())
	_, err := runInProcess("nightly", "rstat-relock", "--resume", "2")
	if verdict.ExitOf(err) != verdict.ExitUsage || !strings.Contains(err.Error(), "--resume 2: it is complete, not interrupted or failed") {
		t.Fatalf("resume of a complete run: %v", err)
	}
	_, err = runInProcess("nightly", "rstat-relock", "--resume", "3")
	if verdict.ExitOf(err) != verdict.ExitUsage || !strings.Contains(err.Error(), "--resume 3: it is a run of execve") {
		t.Fatalf("resume of another experiment's run: %v", err)
	}
	if _, err := runInProcess("nightly", "--resume"); verdict.ExitOf(err) != verdict.ExitUsage {
		t.Fatalf("--resume without a run: %v", err)
	}
}

// A command's help lists its own flags, then the configuration keys.
func TestHelpSplitsConfigurationKeys(t *testing.T) {
	out, err := runInProcess("run", "--help")
	if err != nil {
		t.Fatal(err)
	}
	_, flags, _ := strings.Cut(out, "\nFlags:")
	own, keys, found := strings.Cut(flags, "Configuration keys")
	if !found || !strings.Contains(own, "--dry-run") || strings.Contains(own, "--vm.memory-mb") ||
		!strings.Contains(keys, "--vm.memory-mb int") || !strings.Contains(keys, "--workload.name string") || strings.Contains(keys, "--dry-run") {
		t.Fatalf("run --help:\n%s", out)
	}
	if strings.Contains(flags, "--allow-dirty ") || strings.Contains(flags, "--boots") {
		t.Errorf("a deprecated spelling is listed:\n%s", out)
	}
}
