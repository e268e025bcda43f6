package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
}
