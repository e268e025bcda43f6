package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tinyRepo is a git repository of three commits (not a kernel: the bad
// input below is refused before anything is built).
func tinyRepo(t *testing.T) string {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"},
		{"tag", "one"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "two"},
		{"tag", "two"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestBisectBadInput(t *testing.T) {
	store := seed(t)
	repo := tinyRepo(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--good", "one", "--bad", "one", "--metric", "reads_per_sec"}, "are the same commit"},
		{[]string{"--good", "two", "--bad", "one", "--metric", "reads_per_sec"}, "is not an ancestor of --bad one"},
		{[]string{"--good", "one", "--bad", "no-such-ref", "--metric", "reads_per_sec"}, "no-such-ref"},
		{[]string{"--good", "one", "--bad", "two"}, "give --metric"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "read_per_sec"}, "--metric read_per_sec: workload rstat reports no such metric"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--reps", "5,zero"}, "--repetitions"},
		// Looks too small for alpha: refused before anything builds (the
		// tree is no kernel), naming the boots per look that would do,
		// not "does not reproduce" (exit 7) after the endpoints ran.
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--repetitions", "3"}, "--repetitions 4"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--repetitions", "1,1,1"}, "--repetitions 2,2,2"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--alpha", "0"}, "--alpha 0: want a false-call rate in (0, 1)"},
		{[]string{"--good", "one", "--bad", "two", "--metric", "reads_per_sec", "--alpha", "1.5"}, "--alpha 1.5"},
	} {
		out, err := kregress(t, store, append([]string{"bisect", "--git-tree", repo}, c.args...)...)
		if code := exitCodeOf(err); code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, out)
		}
	}
	// git bisect run stops on >= 128: a step that cannot measure says so.
	if out, err := kregress(t, store, "bisect", "step", "--kernel.git-tree", repo, "--good", "one", "--bad", "two"); exitCodeOf(err) != 128 || !strings.Contains(out, "give --good, --bad, --metric") {
		t.Errorf("step without a metric: exit %d\n%s", exitCodeOf(err), out)
	}
	if out, err := kregress(t, store, "bisect", "step", "--git-tree", repo, "--good", "two", "--bad", "one", "--metric", "x"); exitCodeOf(err) != 128 || !strings.Contains(out, "not an ancestor") {
		t.Errorf("step with reversed endpoints: exit %d\n%s", exitCodeOf(err), out)
	}
	if out, err := kregress(t, store, "bisect", "step", "--git-tree", repo, "--good", "one", "--bad", "two", "--metric", "x", "--alpha", "0"); exitCodeOf(err) != 128 || !strings.Contains(out, "--alpha 0") {
		t.Errorf("step with --alpha 0: exit %d\n%s", exitCodeOf(err), out)
	}
	if out, err := kregress(t, store, "bisect", "show", "9"); exitCodeOf(err) != 1 || !strings.Contains(out, "no bisect 9") {
		t.Errorf("show of a missing bisect: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(repo, ".git"))
	if out, err := kregress(t, store, "bisect", "--git-tree", repo, "--good", "one", "--bad", "two", "--metric", "reads_per_sec"); exitCodeOf(err) != 2 || !strings.Contains(out, "not a git") {
		t.Errorf("not a repository: %v\n%s", err, out)
	}
}
