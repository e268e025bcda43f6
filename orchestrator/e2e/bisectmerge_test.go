package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/kernel/gitfixture"
)

// mergeNoFF makes the merge commit git merge --no-ff would make of
// second into first (git merge-tree, the bare fixture has no worktree),
// with the fixture's fixed identity and date so its id, and its cached
// kernel, are the same on every run; branch is pointed at it.
func mergeNoFF(t *testing.T, repo *gitfixture.Repo, first, second, branch, msg string) string {
	t.Helper()
	git := func(env []string, args ...string) string {
		cmd := exec.Command("git", append([]string{"--git-dir=" + repo.Path}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	tree := strings.Fields(git(nil, "merge-tree", "--write-tree", first, second))[0]
	date := "1764600000 +0000"
	merge := git([]string{"GIT_AUTHOR_NAME=kregress fixture", "GIT_AUTHOR_EMAIL=fixture@kregress.invalid", "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=kregress fixture", "GIT_COMMITTER_EMAIL=fixture@kregress.invalid", "GIT_COMMITTER_DATE=" + date},
		"commit-tree", tree, "-p", first, "-p", second, "-m", msg)
	git(nil, "update-ref", "refs/heads/"+branch, merge)
	return merge
}

// TestBisectIntoMerge bisects, for real, a change committed on a side
// branch and merged with --no-ff: main holds two commits and the merge,
// then one more; the side branch three commits, the second holding the
// rstat lock 200 us longer. The first-parent search finds the merge; the
// bisect must descend into the merged branch, name the commit inside
// (not the merge), confirm it by reverting it on bad, and show the merge.
func TestBisectIntoMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and boots real kernels (run `make test`)")
	}
	bin := binDir(t)
	repo := fixtureRepo(t)
	resultsDir, dir := t.TempDir(), t.TempDir()
	side := commitSteps(t, repo, "e2e-merge-side", []fixtureStep{
		{"README", "doc: side one", func(s string) string { return s + "\nside one\n" }},
		{"kernel/cgroup/rstat.c", "cgroup/rstat: hold the lock 200us longer", slowRstat(t)},
		{"mm/swap.c", "mm/swap: a side comment", comment(t, "void lru_add_drain(void)\n", "side three")},
	})
	mainline := commitSteps(t, repo, "e2e-merge-main", []fixtureStep{
		{"kernel/fork.c", "fork: a comment", comment(t, "static int copy_mm(unsigned long clone_flags, struct task_struct *tsk)\n", "main one")},
		{"kernel/cgroup/cpuset.c", "cpuset: a comment", comment(t, "static void cpuset_attach(struct cgroup_taskset *tset)\n", "main two")},
	})
	merge := mergeNoFF(t, repo, mainline[len(mainline)-1], side[len(side)-1], "e2e-merge-main", "Merge branch 'side'")
	bad := commitOnto(t, repo, merge, "e2e-merge-main", "README", "doc: after the merge", func(s string) string { return s + "\nafter the merge\n" })
	culprit := side[1]

	code, out := runBisect(t, bin, resultsDir, "-c", writeExp(t, dir, "e2e-bisect-merge"), "--kernel.git-tree", repo.Path,
		"--good", repo.Base, "--bad", bad, "--metric", "rstat_lock_hold_p50_us", "--repetitions", "5,5")
	logAfter(t, "bisect, exit %d:\n%s", code, out)
	if code != 0 || !strings.Contains(out, "first bad commit: "+culprit[:12]+" cgroup/rstat: hold the lock 200us longer") {
		t.Fatalf("exit %d: the slowing commit %.12s inside the merged branch was not named:\n%s", code, culprit, tail(out, 40))
	}
	if !strings.Contains(out, "merge: ") || !strings.Contains(out, merge[:12]) {
		t.Fatalf("the merge %.12s the first-parent search found is not shown:\n%s", merge, tail(out, 40))
	}
	if !strings.Contains(out, "confirmed") {
		t.Fatalf("the culprit was not confirmed by revert:\n%s", tail(out, 40))
	}
}
