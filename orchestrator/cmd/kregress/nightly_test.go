package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/results"
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
	if c, out := run("nightly", "rstat-every-n", "no-such-experiment"); c != 2 || !strings.Contains(out, "no-such-experiment") || strings.Count(out, "rstat-every-n-64") != 1 {
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
	if c, out := exitOf(kregress(t, store, "baseline", "accept", "99", "--reason", "x")); c != 2 || !strings.Contains(out, "no run 99") {
		t.Errorf("missing run: exit %d\n%s", c, out)
	}
	mustRun(t, store, "baseline", "accept", "2", "--reason", "intended: relock merged")
	if out := mustRun(t, store, "baseline", "list"); !strings.Contains(out, "run 2\taccepted\t") || !strings.Contains(out, "intended: relock merged") {
		t.Errorf("list:\n%s", out)
	}
}

func exitOf(out string, err error) (int, string) { return exitCodeOf(err), out }

// A run that cannot serve as a baseline is refused (exit 2, saying why):
// an interrupted run, or one with a variant that has no ok cell. Before,
// an interrupted run with 0 of 1 cells ok became the nightly baseline.
func TestBaselineAcceptRefusesUnfitRuns(t *testing.T) {
	path := seed(t)
	s, err := openSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cut := &results.Run{Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	failed := &results.Run{Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	for _, r := range []*results.Run{cut, failed} {
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: "stock", Repetition: 1, Seq: 1, Status: results.StatusBootFailed}); err != nil {
			t.Fatal(err)
		}
	}
	s.FinishRun(ctx, cut.ID, results.RunInterrupted, "")
	s.FinishRun(ctx, failed.ID, results.RunComplete, "")
	s.Close()
	for id, want := range map[int64]string{cut.ID: "not complete", failed.ID: "no ok cell of variant stock"} {
		if c, out := exitOf(kregress(t, path, "baseline", "accept", fmt.Sprint(id), "--reason", "x")); c != 2 || !strings.Contains(out, want) {
			t.Errorf("accept run %d: exit %d, want 2 with %q\n%s", id, c, want, out)
		}
	}
}
