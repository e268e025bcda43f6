package main

import (
	"os"
	"strings"
	"testing"
)

// A run started on another host whose process is gone stayed "running"
// in every listing for ever. Now list and show say what is known (host,
// pid, start, that nobody here can check) and change nothing; a writing
// command does not guess; results mark-interrupted marks it, once, and
// refuses a run that is alive here or not running.
func TestRunOnAnotherHostCanBeMarkedInterrupted(t *testing.T) {
	store := seed(t)
	markRunning(t, store, 1, 4242, "build-7.example")
	// Run 2 is alive on this host: this test's own process.
	markRunning(t, store, 2, os.Getpid(), hostname(t))
	before := snap(t, store)
	for _, args := range [][]string{{"results", "list"}, {"results", "show", "1"}} {
		out := mustRun(t, store, args...)
		for _, want := range []string{"running on build-7.example", "pid 4242 since ", "cannot check from here", "kregress results mark-interrupted 1"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v lacks %q:\n%s", args, want, out)
			}
		}
	}
	if after := snap(t, store); !before.same(after) {
		t.Fatal("list or show changed the store")
	}
	mustRun(t, store, "results", "prune", "--keep", "100") // a writing command
	if out := mustRun(t, store, "results", "list"); !strings.Contains(out, "running on build-7.example") {
		t.Fatalf("a writing command marked a run it cannot check:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"results", "mark-interrupted", "2"}, "is running on this host (kregress pid"},
		{[]string{"results", "mark-interrupted", "abc"}, `"abc" is not a run id`},
		{[]string{"results", "mark-interrupted", "3"}, "is complete, not running"},
		{[]string{"results", "mark-interrupted", "99"}, "no run 99"},
	} {
		out, err := kregress(t, store, c.args...)
		if code := exitCodeOf(err); code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want a refusal saying %q:\n%s", c.args, code, c.want, out)
		}
	}
	if out, err := kregress(t, store, "results", "mark-interrupted", "abc"); exitCodeOf(err) != 2 {
		t.Errorf("a bad run id: exit %d, want 2\n%s", exitCodeOf(err), out)
	}
	out := mustRun(t, store, "results", "mark-interrupted", "1")
	if !strings.Contains(out, "run 1 marked interrupted") || !strings.Contains(out, "--resume 1") {
		t.Fatalf("mark-interrupted 1:\n%s", out)
	}
	out = mustRun(t, store, "results", "show", "1")
	if !strings.Contains(out, ", interrupted\n") || !strings.Contains(out, "marked interrupted by hand on ") || !strings.Contains(out, "it was running on build-7.example, kregress pid 4242") {
		t.Fatalf("show after marking:\n%s", out)
	}
	if out, err := kregress(t, store, "results", "mark-interrupted", "1"); exitCodeOf(err) != 2 || !strings.Contains(out, "is interrupted, not running") {
		t.Fatalf("marking twice: exit %d\n%s", exitCodeOf(err), out)
	}
}
