package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run id no run can have (0, -1) is a usage error (exit 2) naming it,
// wherever a RUN is read (diff said "no run 0", exit 1; baseline accept 0
// opened the store first); a positive id the store does not hold is
// the user's mistake too (TestMissingThingsExit2).
func TestImpossibleRunIDsAreUsage(t *testing.T) {
	store := seed(t)
	before, _ := os.ReadFile(store)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"diff", "0"}, 2, `"0" is not a run id`},
		{[]string{"diff", "--", "-1"}, 2, `"-1" is not a run id`},
		{[]string{"diff", "1", "0/stock"}, 2, `"0" is not a run id`},
		{[]string{"baseline", "accept", "0", "--reason", "x"}, 2, `"0" is not a run id`},
		{[]string{"baseline", "list", "0"}, 2, `"0" is not a run id`},
		{[]string{"bisect", "show", "0"}, 2, `"0" is not a bisect id`},
		{[]string{"diff", "99"}, 2, "no run 99"},
	} {
		out, err := kregress(t, store, tc.args...)
		if code := exitCodeOf(err); code != tc.code || !strings.Contains(out, tc.says) {
			t.Errorf("kregress %s: exit %d, want %d saying %s:\n%s", strings.Join(tc.args, " "), code, tc.code, tc.says, out)
		}
	}
	if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
		t.Error("a refused command changed the store")
	}
}

// Every command that takes -o refuses one naming a results store with
// exit 2 and leaves it as it was.
func TestRefusedOutputExits2(t *testing.T) {
	store := seed(t)
	victim := filepath.Join(t.TempDir(), "other.db")
	data, _ := os.ReadFile(store)
	os.WriteFile(victim, data, 0o644)
	for _, args := range [][]string{
		{"diff", "1", "-o", victim},
		{"diff", "1", "2", "-o", "json=" + victim},
		{"results", "export", "1", "-o", victim},
		{"nightly", "-o", "json=" + victim},
		{"bisect", "--good", "a", "--bad", "b", "--metric", "m", "-o", "markdown=" + victim},
		{"bisect", "show", "1", "-o", "json=" + victim},
	} {
		out, err := kregress(t, store, args...)
		if code := exitCodeOf(err); code != 2 || !strings.Contains(out, "a report never replaces it") {
			t.Errorf("kregress %s: exit %d, want 2:\n%s", strings.Join(args, " "), code, out)
		}
		if after, _ := os.ReadFile(victim); !bytes.Equal(data, after) {
			t.Fatalf("kregress %s wrote over %s", strings.Join(args, " "), victim)
		}
	}
}

// results prune --dry-run writes nothing (it marked the stale runs
// interrupted): it lists a run whose process is gone, as the real prune
// would delete it, and neither lists nor deletes one whose kregress is
// alive, naming its pid.
func TestPruneDryRunWritesNothingAndSparesLiveRuns(t *testing.T) {
	store := seed(t)
	// Run 1's kregress is gone (a pid that cannot exist); run 2's is this
	// test's own process, alive.
	markRunning(t, store, 1, 1<<30, hostname(t))
	markRunning(t, store, 2, os.Getpid(), hostname(t))
	before := snap(t, store)
	for _, args := range [][]string{{"results", "prune", "--keep", "100", "--dry-run"}, {"results", "prune", "1", "2", "--dry-run"}} {
		out := mustRun(t, store, args...)
		if after := snap(t, store); !before.same(after) {
			t.Fatalf("%v changed the store:\n%s", args, out)
		}
		if args[2] == "--keep" { // nothing selected
			continue
		}
		pid := fmt.Sprintf("skip run 2: still running (kregress pid %d on %s)", os.Getpid(), hostname(t))
		if !strings.Contains(out, "would delete run 1 ") || !strings.Contains(out, pid) || strings.Contains(out, "would delete run 2") {
			t.Fatalf("%v: want run 1 listed and run 2 skipped naming its pid:\n%s", args, out)
		}
	}
	out := mustRun(t, store, "results", "prune", "1", "2")
	if !strings.Contains(out, "deleted run 1 ") || !strings.Contains(out, "skip run 2: still running (kregress pid") {
		t.Fatalf("prune 1 2:\n%s", out)
	}
	if out := mustRun(t, store, "results", "show", "2"); !strings.Contains(out, "running") {
		t.Fatalf("run 2 is gone:\n%s", out)
	}
}
