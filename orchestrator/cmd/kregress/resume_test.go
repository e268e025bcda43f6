package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Resuming a run or a bisect that is not there is the user's mistake:
// exit 2 naming it, before anything is built and without creating the
// store (run --resume 99 unpacked the kernel source, built the
// selftests, created the store, then failed on something else; bisect
// --resume 3 created the store it then found empty).
func TestResumeOfNothingBuildsAndCreatesNothing(t *testing.T) {
	dir := isolate(t) // the cache is dir/cache
	t.Chdir(dir)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"run", "--resume", "99", "--store", "nodir/k.db"}, "no results store at nodir/k.db"},
		{[]string{"bisect", "--resume", "3", "--store", "nodir/k.db"}, "no results store at nodir/k.db"},
	} {
		out, err := inProcess(t, nil, c.args...)
		if code := exitCodeOf(err); code != 2 || !strings.Contains(out, c.says) {
			t.Errorf("kregress %s: exit %d, want 2 saying %q:\n%s", strings.Join(c.args, " "), code, c.says, out)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the refused resumes left %v in %s", left, dir)
	}
	// A store without that run: the same, the store untouched.
	path := seed(t)
	before := snap(t, path)
	out, err := inProcess(t, nil, "run", "--resume", "99", "--store", path)
	if code := exitCodeOf(err); code != 2 || !strings.Contains(out, "no run 99") {
		t.Errorf("run --resume 99 of a store without it: exit %d\n%s", code, out)
	}
	if !before.same(snap(t, path)) {
		t.Error("run --resume 99 changed the store")
	}
	if _, err := os.Stat(filepath.Join(dir, "cache")); err == nil {
		t.Error("run --resume 99 wrote into the cache (it built something)")
	}
}
