package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/store/storetest"
)

// oldKernelTree is a tiny git "kernel" whose trace headers define no
// rstat lock events (as 6.1's), with a patch that applies to it.
func oldKernelTree(t *testing.T) (tree, patch string) {
	t.Helper()
	tree = t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = tree
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(tree, "Makefile"), []byte("VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n"), 0o644)
	os.MkdirAll(filepath.Join(tree, "include/trace/events"), 0o755)
	os.WriteFile(filepath.Join(tree, "include/trace/events/cgroup.h"), []byte("DEFINE_EVENT(cgroup, cgroup_mkdir,\n);\n"), 0o644)
	os.WriteFile(filepath.Join(tree, "rstat.c"), []byte("one\ntwo\nthree\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "6.1")
	patch = filepath.Join(t.TempDir(), "p.patch")
	os.WriteFile(patch, []byte("--- a/rstat.c\n+++ b/rstat.c\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"), 0o644)
	return tree, patch
}

// The rstat quick-mode primary on a tree without the lock-hold
// tracepoints: named explicitly, refused up front (exit 2) with what the
// tree lacks, by run and by its dry run; not named, the workload's
// fallback is judged and said.
func TestPrimaryMetricOnATreeWithoutIt(t *testing.T) {
	tree, patch := oldKernelTree(t)
	exp := gitExperiment(t, tree, "")
	cache := t.TempDir()
	store := filepath.Join(t.TempDir(), "kregress.db")
	for _, dry := range []bool{true, false} {
		args := []string{"run", "-c", exp, "--patch", patch, "--cache-dir", cache, "--primary-metrics", "rstat_lock_hold_p50_us"}
		if dry {
			args = append(args, "--dry-run")
		}
		out, err := kregress(t, store, args...)
		if code := exitCodeOf(err); code != 2 {
			t.Errorf("dry run %v: exit %d, want 2\n%s", dry, code, out)
		}
		for _, want := range []string{"primary metric rstat_lock_hold_p50_us cannot be measured", "6.1.192", "tracepoint cgroup:cgroup_rstat_locked"} {
			if !strings.Contains(out, want) {
				t.Errorf("dry run %v: output lacks %q:\n%s", dry, want, out)
			}
		}
		if strings.Contains(out, "make O=") || strings.Contains(out, "kernel: configuring") {
			t.Errorf("dry run %v: built before refusing:\n%s", dry, out)
		}
	}
	out := mustRun(t, store, "run", "-c", exp, "--patch", patch, "--cache-dir", cache, "--dry-run")
	if !strings.Contains(out, "primary metric: read_latency_p50_us instead of rstat_lock_hold_p50_us") {
		t.Errorf("the workload's primary on 6.1: no fallback said:\n%s", out)
	}
	// It changes what the verdict is about: a warning, which -q does not
	// hide (hostile audit: it was a progress line).
	out = mustRun(t, store, "run", "-q", "-c", exp, "--patch", patch, "--cache-dir", cache, "--dry-run")
	if !strings.Contains(out, "warning: primary metric: read_latency_p50_us instead of rstat_lock_hold_p50_us") {
		t.Errorf("-q hid the fallback:\n%s", out)
	}
}

// A stored run that judged the workload's fallback primary says so with
// every verdict judged from it: diff of the run, and of it against
// another.
func TestDiffSaysTheFallbackPrimary(t *testing.T) {
	path := seed(t) // runs 1 and 2 judged their own primary, 3 is another workload's
	s, err := openSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Repetitions: 6, PrimaryMetrics: []string{"reads_per_sec"},
		PrimaryFallback: "primary metric: reads_per_sec instead of rstat_lock_hold_p99_us, which git tree /linux at v6.1 (6.1.192) cannot produce"}
	r := storetest.AddReadsRun(t, s, cfg.YAML(), []string{"stock", "per-cpu-relock"}, 6)
	s.Close()
	id := strconv.FormatInt(r.ID, 10)
	want := "run" + id + ": warning: primary metric: reads_per_sec instead of rstat_lock_hold_p99_us"
	for _, args := range [][]string{{"diff", id}, {"diff", "2", id, "--force"}, {"diff", id, "-q"}} {
		if out := mustRun(t, path, args...); !strings.Contains(out, want) {
			t.Errorf("%v lacks %q:\n%s", args, want, out)
		}
	}
	if out := mustRun(t, path, "diff", "2"); strings.Contains(out, "warning: primary metric") {
		t.Errorf("run 2 judged its own primary, its diff warns:\n%s", out)
	}
}
