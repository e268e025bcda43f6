package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/orchestrator/session"
)

// The nightly's bad input is refused before anything is built or booted.
func TestNightlyBadInputAndLock(t *testing.T) {
	store := seed(t)
	cache := t.TempDir()
	run := func(args ...string) (int, string) {
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append(os.Environ(), "KREGRESS_STORE="+store, "KREGRESS_RESULTS_DIR="+filepath.Dir(store), "KREGRESS_CACHE_DIR="+cache)
		out, err := cmd.CombinedOutput()
		return exitCodeOf(err), string(out)
	}
	if c, out := run("nightly", "rstat-every-n", "no-such-experiment"); c != 2 || !strings.Contains(out, "no-such-experiment") || !strings.Contains(out, "built-in experiments:") {
		t.Errorf("unknown experiment: exit %d\n%s", c, out)
	}
	unlock, err := filelock.TryLock(filepath.Join(cache, "nightly-"+session.CacheKey(store)+".lock"), "kregress nightly, pid 1 on ci-1")
	if err != nil {
		t.Fatal(err)
	}
	if c, out := run("nightly", "rstat-every-n"); c != 6 || !strings.Contains(out, "pid 1 on ci-1") {
		t.Errorf("lock held: exit %d\n%s", c, out)
	}
	unlock()
}

func TestBaselineAccept(t *testing.T) {
	store := seed(t)
	if c, out := exitOf(kregress(t, store, "baseline", "accept", "1")); c != 2 || !strings.Contains(out, "--reason is required") {
		t.Errorf("no reason: exit %d\n%s", c, out)
	}
	if c, out := exitOf(kregress(t, store, "baseline", "accept", "99", "--reason", "x")); c != 1 || !strings.Contains(out, "no run 99") {
		t.Errorf("missing run: exit %d\n%s", c, out)
	}
	mustRun(t, store, "baseline", "accept", "2", "--reason", "intended: relock merged")
	if out := mustRun(t, store, "baseline", "list"); !strings.Contains(out, "run 2\taccepted\t") || !strings.Contains(out, "intended: relock merged") {
		t.Errorf("list:\n%s", out)
	}
}

func exitOf(out string, err error) (int, string) { return exitCodeOf(err), out }
