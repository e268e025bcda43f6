package gitfixture

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMakeIsDeterministicAndCached(t *testing.T) {
	tree := t.TempDir()
	for _, f := range laterFiles {
		os.MkdirAll(filepath.Join(tree, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(tree, f), []byte("a\nb\nc\n"), 0o644)
	}
	// A tarball's .gitignore must not hide its files.
	os.WriteFile(filepath.Join(tree, ".gitignore"), []byte("*.c\n"), 0o644)
	topic := []byte("--- a/kernel/cgroup/rstat.c\n+++ b/kernel/cgroup/rstat.c\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
	ctx := context.Background()
	ids := map[string]bool{}
	for i := 0; i < 2; i++ {
		r, err := Make(ctx, tree, t.TempDir(), topic)
		if err != nil {
			t.Fatal(err)
		}
		log := gitOut(t, r.Path, "log", "--format=%H %s", r.Later)
		if n := strings.Count(log, "\n"); n != 11 {
			t.Fatalf("want 11 commits on %s, got %d:\n%s", r.Later, n, log)
		}
		if got := gitOut(t, r.Path, "show", r.Topic+":kernel/cgroup/rstat.c"); got != "a\nB\nc\n" {
			t.Fatalf("topic rstat.c = %q", got)
		}
		if got := gitOut(t, r.Path, "ls-tree", "-r", "--name-only", r.Base); !strings.Contains(got, "kernel/fork.c") {
			t.Fatalf("ignored file missing from base: %s", got)
		}
		ids[gitOut(t, r.Path, "rev-parse", r.Later)] = true
		// A second Make of the same directory reuses it.
		if _, err := Make(ctx, tree, filepath.Dir(r.Path), topic); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("commit ids differ between two fixtures: %v", ids)
	}
}

// Edit commits one file's change on a branch, deterministically, and
// refuses an edit that does not apply or changes nothing.
func TestEdit(t *testing.T) {
	tree := t.TempDir()
	for _, f := range laterFiles {
		os.MkdirAll(filepath.Join(tree, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(tree, f), []byte("a\nb\nc\n"), 0o644)
	}
	ctx := context.Background()
	r, err := Make(ctx, tree, t.TempDir(), []byte("--- a/kernel/cgroup/rstat.c\n+++ b/kernel/cgroup/rstat.c\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"))
	if err != nil {
		t.Fatal(err)
	}
	c1, err := r.Edit(ctx, r.Base, "work", "mm/swap.c", "swap: b to X", Replace("b\n", "X\n"))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := r.Edit(ctx, r.Base, "work", "mm/swap.c", "swap: b to X", Replace("b\n", "X\n"))
	if err != nil || c1 != c2 {
		t.Fatalf("the same edit twice: %s and %s (%v)", c1, c2, err)
	}
	if got := gitOut(t, r.Path, "show", "work:mm/swap.c"); got != "a\nX\nc\n" {
		t.Fatalf("work:mm/swap.c = %q", got)
	}
	if got := gitOut(t, r.Path, "show", "work:kernel/fork.c"); got != "a\nb\nc\n" {
		t.Fatalf("an untouched file changed: %q", got)
	}
	if _, err := r.Edit(ctx, "work", "work", "mm/swap.c", "again", Replace("b\n", "Y\n")); err == nil {
		t.Fatal("an edit whose text is not there was committed")
	}
}

func gitOut(t *testing.T, repo string, args ...string) string {
	out, err := exec.Command("git", append([]string{"--git-dir=" + repo}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
