package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/kernel/gitfixture"
)

// bisectWorkload keeps each cell short: a bisect boots many.
const bisectWorkload = `vm:
  cpus: 2
  boot_timeout: 90s
workload:
  name: rstat
  duration: 2s
  params:
    readers: "2"
    hogs: "1"
    window: 1s
selftests:
  repetitions: 0
`

// The slow change: every rstat lock hold 200 us longer.
func slowRstat(t *testing.T) func(string) string {
	return func(s string) string {
		s = replaceOnce(t, s, "#include <linux/cpumask.h>\n", "#include <linux/cpumask.h>\n#include <linux/delay.h>\n")
		return replaceOnce(t, s, "\ttrace_cgroup_rstat_locked(cgrp, cpu_in_loop, contended);\n}", "\ttrace_cgroup_rstat_locked(cgrp, cpu_in_loop, contended);\n\tudelay(200);\n}")
	}
}

func comment(t *testing.T, anchor, text string) func(string) string {
	return func(s string) string { return replaceOnce(t, s, anchor, "/* "+text+" */\n"+anchor) }
}

// fixtureStep is one commit made on a fixture branch: file edited by
// edit, with message msg.
type fixtureStep struct {
	file, msg string
	edit      func(string) string
}

// commitSteps commits steps one on another from repo.Base onto branch
// and returns the commits, oldest first.
func commitSteps(t *testing.T, repo *gitfixture.Repo, branch string, steps []fixtureStep) []string {
	t.Helper()
	parent := repo.Base
	var commits []string
	for _, s := range steps {
		parent = commitOnto(t, repo, parent, branch, s.file, s.msg, s.edit)
		commits = append(commits, parent)
	}
	return commits
}

// The bisect fixture's eight commits (TestBisect, TestNightlyBisect): the
// fourth (fixtureBroken) does not build, the fifth fixes it, the sixth
// (fixtureCulprit) holds the rstat lock 200 us longer.
const (
	fixtureBroken  = 3
	fixtureCulprit = 5
)

func bisectFixture(t *testing.T) []fixtureStep {
	return []fixtureStep{
		{"README", "doc: one", func(s string) string { return s + "\nbisect one\n" }},
		{"mm/swap.c", "mm/swap: a comment", comment(t, "void lru_add_drain(void)\n", "bisect two")},
		{"kernel/cgroup/cpuset.c", "cpuset: a comment", comment(t, "static void cpuset_attach(struct cgroup_taskset *tset)\n", "bisect three")},
		{"kernel/fork.c", "fork: break the build", func(s string) string {
			return replaceOnce(t, s, "static int copy_mm(unsigned long clone_flags, struct task_struct *tsk)\n", "static int copy_mm(unsigned long clone_flags, struct task_struct *tsk) syntax error\n")
		}},
		{"kernel/fork.c", "fork: fix the build", func(s string) string {
			return replaceOnce(t, s, "static int copy_mm(unsigned long clone_flags, struct task_struct *tsk) syntax error\n", "static int copy_mm(unsigned long clone_flags, struct task_struct *tsk)\n")
		}},
		{"kernel/cgroup/rstat.c", "cgroup/rstat: hold the lock 200us longer", slowRstat(t)},
		{"README", "doc: seven", func(s string) string { return s + "\nbisect seven\n" }},
		{"mm/swap.c", "mm/swap: another comment", comment(t, "void lru_add_drain(void)\n", "bisect eight")},
	}
}

func runBisect(t *testing.T, bin, resultsDir string, args ...string) (int, string) {
	t.Helper()
	return runKregress(t, bin, resultsDir, append([]string{"bisect"}, args...)...)
}

// TestBisect bisects, for real, eight commits of the fixture repository:
// the fourth does not build (the fifth fixes it), the sixth holds the
// rstat lock 200 us longer. Then the same change as the second patch of a
// four-patch series.
func TestBisect(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and boots real kernels (run `make test`)")
	}
	bin := binDir(t)
	repo := fixtureRepo(t)
	resultsDir, dir := t.TempDir(), t.TempDir()
	const branch = "e2e-bisect"
	commits := commitSteps(t, repo, branch, bisectFixture(t))
	code, out := runBisect(t, bin, resultsDir, "-c", writeExp(t, dir, "e2e-bisect"), "--kernel.git-tree", repo.Path,
		"--good", repo.Base, "--bad", branch, "--metric", "rstat_lock_hold_p50_us", "--repetitions", "5,5")
	logAfter(t, "bisect, exit %d:\n%s", code, out)
	if code != 0 || !strings.Contains(out, "result: first bad commit: "+commits[fixtureCulprit][:12]+" cgroup/rstat: hold the lock 200us longer") {
		t.Fatalf("exit %d: the slowing commit %.12s was not named:\n%s", code, commits[fixtureCulprit], tail(out, 40))
	}
	if !strings.Contains(out, "skip      "+commits[fixtureBroken][:12]+" fork: break the build") || !strings.Contains(out, "does not build") {
		t.Fatalf("the broken commit was not reported as skipped:\n%s", tail(out, 40))
	}
	if !strings.Contains(out, "git bisect skip "+commits[fixtureBroken]) || !strings.Contains(out, "# first bad commit: ["+commits[fixtureCulprit]+"]") {
		t.Fatalf("no replayable git bisect log:\n%s", tail(out, 40))
	}
	if n := strings.Count(out, ", runs ["); n > 3+3 {
		t.Fatalf("%d measured steps for 8 commits (log2(8) + 3 = 6):\n%s", n, tail(out, 40))
	}

	// The same change as patch 2 of 4.
	series := filepath.Join(dir, "series")
	commitSteps(t, repo, "e2e-series", []fixtureStep{
		{"mm/swap.c", "mm/swap: a comment", comment(t, "void lru_add_drain(void)\n", "series one")},
		{"kernel/cgroup/rstat.c", "cgroup/rstat: hold the lock 200us longer", slowRstat(t)},
		{"README", "doc: three", func(s string) string { return s + "\nseries three\n" }},
		{"kernel/cgroup/cpuset.c", "cpuset: a comment", comment(t, "static void cpuset_attach(struct cgroup_taskset *tset)\n", "series four")},
	})
	if out, err := exec.Command("git", "--git-dir="+repo.Path, "format-patch", "-q", repo.Base+"..e2e-series", "-o", series).CombinedOutput(); err != nil {
		t.Fatalf("format-patch: %v\n%s", err, out)
	}
	code, out = runBisect(t, bin, resultsDir, "-c", writeExp(t, dir, "e2e-series"), "--kernel.git-tree", repo.Path,
		"--series", series, "--base", repo.Base, "--metric", "rstat_lock_hold_p50_us", "--repetitions", "5,5")
	logAfter(t, "series bisect, exit %d:\n%s", code, out)
	if code != 0 || !strings.Contains(out, "result: first bad patch: 2/4 cgroup/rstat: hold the lock 200us longer") {
		t.Fatalf("exit %d: the slowing patch was not named:\n%s", code, tail(out, 30))
	}
	// bisect show prints the same from the store.
	show := kregressRun(t, bin, resultsDir, "bisect", "show", "2")
	if !strings.Contains(show, "first bad patch: 2/4") {
		t.Fatalf("bisect show 2:\n%s", show)
	}
}

func writeExp(t *testing.T, dir, name string) string {
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte("experiment: "+name+"\n"+bisectWorkload), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
