package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/kernel/gitfixture"
)

// commitOnto commits one file's change on branch (gitfixture.Repo.Edit:
// fixed dates, so the same commit and cached kernel on every run).
func commitOnto(t *testing.T, repo *gitfixture.Repo, parent, branch, file, msg string, edit func(string) string) string {
	t.Helper()
	c, err := repo.Edit(context.Background(), parent, branch, file, msg, func(s string) (string, error) { return edit(s), nil })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	out, err := gitfixture.Replace(old, new)(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// nightFiles are where a night of runNight writes its JUnit and Markdown.
func nightFiles(dir string) (junit, md string) {
	return filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
}

// runNight runs night n, `kregress args...` writing nightFiles(dir), logs
// what it printed and wrote, fails the test unless it exits wantCode, and
// returns its output, JUnit and Markdown.
func runNight(t *testing.T, bin, resultsDir, dir string, n, wantCode int, args ...string) (string, string, string) {
	t.Helper()
	junit, md := nightFiles(dir)
	code, out := runKregress(t, bin, resultsDir, args...)
	j, _ := os.ReadFile(junit)
	m, _ := os.ReadFile(md)
	logAfter(t, "night %d: exit %d\n%s\n--- junit ---\n%s\n--- markdown ---\n%s", n, code, out, j, m)
	if code != wantCode {
		t.Fatalf("night %d: exit %d, want %d:\n%s", n, code, wantCode, tail(out, 30))
	}
	return out, string(j), string(m)
}

// TestNightly simulates five nights of a branch of the fixture repository,
// with the default guest clock (icount under TCG): night 1 sets the
// baseline on an idle host; night 2, unchanged, passes though a CPU hog
// loads the host; night 3, with a commit that slows memory.stat reads
// outside any lock (the primary flat), is never a pass nor a baseline;
// night 4, with a commit that holds the rstat lock 200 us longer, exits 3
// naming the metric in JUnit and Markdown; night 5, with a commit that
// panics when memory.stat is read, exits 5 with the console tail in JUnit.
func TestNightly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and boots real kernels (run `make test`)")
	}
	bin := binDir(t)
	repo := fixtureRepo(t)
	resultsDir, dir := t.TempDir(), t.TempDir()
	const branch = "e2e-nightly"
	base := commitOnto(t, repo, repo.Base, branch, "README", "nightly: night 1", func(s string) string { return s + "\nkregress e2e nightly\n" })
	exp := filepath.Join(dir, "nightly.yaml")
	// One hog per vCPU: with a single hog the lock hold's median takes
	// one of two values by the CPU the hog lands on, and five boots of a
	// two-valued primary cannot rule out a change of the margin.
	os.WriteFile(exp, []byte(`experiment: e2e-nightly
family: tip
families:
  tip:
    workload: rstat
    baseline: tip
    variants:
      tip: {}
primary_metrics: [rstat_lock_hold_p50_us]
`+strings.NewReplacer("repetitions: 1\n", "repetitions: 5\n", "gate_only: true\n", "", "hogs: \"1\"\n", "hogs: \"2\"\n").Replace(userChangeWorkload)), 0o644)
	night := func(n int, wantCode int) (string, string, string) {
		t.Helper()
		junit, md := nightFiles(dir)
		return runNight(t, bin, resultsDir, dir, n, wantCode, "nightly", exp, "--kernel.git-tree", repo.Path, "--branch", branch,
			"-o", "junit="+junit, "-o", "markdown="+md, "-o", "html="+filepath.Join(dir, "trend.html"), "--extra-rounds", "0")
	}

	out, junit, _ := night(1, 0)
	if !strings.Contains(out, "tonight is the baseline") || !strings.Contains(junit, `<skipped message="no good night of `) || !strings.Contains(junit, `value="`+base+`"`) {
		t.Fatal("night 1 did not set the baseline")
	}
	// Night 2, unchanged, on a host made busy by a CPU hog on both its
	// cores: the guests' clock counts instructions, so the host's load is
	// not the kernel's change, and the night passes.
	junitPath, mdPath := nightFiles(dir)
	stopHog := startCPUHog(t)
	code, out := runKregress(t, bin, resultsDir, "nightly", exp, "--kernel.git-tree", repo.Path, "--branch", branch,
		"-o", "junit="+junitPath, "-o", "markdown="+mdPath, "-o", "html="+filepath.Join(dir, "trend.html"), "--extra-rounds", "0")
	stopHog()
	j2, _ := os.ReadFile(junitPath)
	junit = string(j2)
	logAfter(t, "night 2: exit %d\n%s\n--- junit ---\n%s", code, out, junit)
	if code != 0 {
		t.Fatalf("night 2 (unchanged, the host loaded by a CPU hog): exit %d, want 0 (pass):\n%s", code, tail(out, 30))
	}
	t.Logf("night 2 (unchanged): exit %d", code)
	if page, err := os.ReadFile(filepath.Join(dir, "trend.html")); err != nil || !strings.Contains(string(page), "<polyline") {
		t.Fatalf("no trend page after two nights: %v", err)
	}
	if strings.Contains(junit, "<failure") || strings.Contains(junit, "<error") || !strings.Contains(junit, `name="rstat_lock_hold_p50_us" classname="e2e-nightly.tip"`) {
		t.Fatalf("night 2 (unchanged) has a failing JUnit case (a false alarm):\n%s", tail(out, 30))
	}
	// A throughput-only regression: 1.5 ms more per memory.stat read,
	// outside any lock. The primary metric (the lock hold) stays flat;
	// reads/s falls several-fold in every boot. Unjudged at 5+5 in its
	// family, it must still keep the night from passing and from
	// becoming the baseline.
	commitOnto(t, repo, branch, branch, "mm/memcontrol.c", "memcg: 1.5 ms more per memory.stat read", func(s string) string {
		s = replaceOnce(t, s, "#include <linux/page_counter.h>\n", "#include <linux/page_counter.h>\n#include <linux/delay.h>\n")
		return replaceOnce(t, s, "\tseq_buf_init(&s, buf, PAGE_SIZE);\n\tmemory_stat_format(memcg, &s);", "\tudelay(1500);\n\tseq_buf_init(&s, buf, PAGE_SIZE);\n\tmemory_stat_format(memcg, &s);")
	})
	junit, md := nightFiles(dir)
	code, out = runKregress(t, bin, resultsDir, "nightly", exp, "--kernel.git-tree", repo.Path, "--branch", branch,
		"-o", "junit="+junit, "-o", "markdown="+md, "--extra-rounds", "0")
	logAfter(t, "night (throughput only): exit %d\n%s", code, out)
	if code != 9 && code != 3 || strings.Contains(out, "no significant change") || !strings.Contains(out, "reads_per_sec") {
		t.Fatalf("a night whose reads/s fell in every boot, primary flat: exit %d, want 9 (UNJUDGED) or 3, naming reads_per_sec:\n%s", code, tail(out, 30))
	}
	if marks := kregressRun(t, bin, resultsDir, "baseline", "list"); strings.Contains(marks, "run 3\t") {
		t.Fatalf("the throughput-only night (run 3) became a baseline:\n%s", marks)
	}
	commitOnto(t, repo, branch, branch, "kernel/cgroup/rstat.c", "cgroup/rstat: hold the lock 200us longer", func(s string) string {
		s = replaceOnce(t, s, "#include <linux/cpumask.h>\n", "#include <linux/cpumask.h>\n#include <linux/delay.h>\n")
		return replaceOnce(t, s, "\ttrace_cgroup_rstat_locked(cgrp, cpu_in_loop, contended);\n}", "\ttrace_cgroup_rstat_locked(cgrp, cpu_in_loop, contended);\n\tudelay(200);\n}")
	})
	_, junit, md = night(4, 3)
	if !strings.Contains(junit, `<failure message="rstat_lock_hold_p50_us +`) || !strings.Contains(md, "**failure** tip rstat_lock_hold_p50_us") {
		t.Fatal("night 3 (slower) does not name the metric")
	}
	commitOnto(t, repo, branch, branch, "mm/memcontrol.c", "memcg: panic on memory.stat", func(s string) string {
		return replaceOnce(t, s, "\tseq_buf_init(&s, buf, PAGE_SIZE);\n\tmemory_stat_format(memcg, &s);", "\tpanic(\"kregress e2e nightly: memory.stat read\\n\");\n\tseq_buf_init(&s, buf, PAGE_SIZE);\n\tmemory_stat_format(memcg, &s);")
	})
	_, junit, _ = night(5, 5)
	if !strings.Contains(junit, "<error") || !strings.Contains(junit, "kregress e2e nightly: memory.stat read") {
		t.Fatal("night 4 (panics) has no JUnit error with the console tail")
	}
}

// startCPUHog keeps every host core busy (stress-ng, a Debian package the
// tests install) until the returned stop is called, or the test ends.
func startCPUHog(t *testing.T) (stop func()) {
	t.Helper()
	cmd := exec.Command("stress-ng", "--cpu", "0", "--timeout", "60m", "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatalf("the CPU hog: %v", err)
	}
	done := false
	stop = func() {
		if done {
			return
		}
		done = true
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	t.Cleanup(stop)
	return stop
}
