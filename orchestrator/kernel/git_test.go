package kernel

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/patches"
)

// depMakefile is a fake kernel whose make really tracks dependencies: one
// object per .c file, recompiled only when its source is newer, each
// compile logged to $(O)/compiles.
const depMakefile = `
SRCS := $(sort $(wildcard *.c))
OBJS := $(patsubst %.c,$(O)/%.o,$(SRCS))
tinyconfig:
	printf 'CONFIG_BASE=y\n' > $(O)/.config
olddefconfig:
	true
bzImage: $(OBJS)
	mkdir -p $(O)/arch/x86/boot
	cat $(OBJS) > $(O)/arch/x86/boot/bzImage
$(O)/%.o: %.c
	@echo "  CC      $@"
	cp $< $@
	echo $< >> $(O)/compiles
`

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	base := []string{"-c", "user.email=t@example.org", "-c", "user.name=t"}
	if err := run(context.Background(), dir, nil, "git", append(base, args...)...); err != nil {
		t.Fatal(err)
	}
}

// gitTree makes a repository with three commits: v1 (a.c, b.c), v2 (b.c
// changed), v3 (c.c added).
func gitTree(t *testing.T) string {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	testfile.Write(t, filepath.Join(dir, "Makefile"), depMakefile)
	testfile.Write(t, filepath.Join(dir, "a.c"), "a 1\na 2\na 3\n")
	testfile.Write(t, filepath.Join(dir, "b.c"), "b 1\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "v1")
	git(t, dir, "tag", "v1")
	testfile.Write(t, filepath.Join(dir, "b.c"), "b 2\n")
	git(t, dir, "commit", "-q", "-am", "v2")
	testfile.Write(t, filepath.Join(dir, "c.c"), "c 1\n")
	git(t, dir, "add", "c.c")
	git(t, dir, "commit", "-q", "-m", "v3")
	return dir
}

// compiled returns the sources compiled since the last call.
func compiledSince(t *testing.T, cache string, seen *int) []string {
	matches, _ := filepath.Glob(filepath.Join(cache, "ws", "*", "build-*", "compiles"))
	var all []string
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		all = append(all, strings.Fields(string(data))...)
	}
	out := append([]string(nil), all[*seen:]...)
	*seen = len(all)
	sort.Strings(out)
	return out
}

func TestGitRefsBuildIncrementally(t *testing.T) {
	tree := gitTree(t)
	cache := t.TempDir()
	b := &Builder{CacheDir: cache, Jobs: 1}
	ctx := context.Background()
	build := func(ref string, v *patches.Variant) *Kernel {
		t.Helper()
		k, err := b.Build(ctx, Request{Source: GitSource{Tree: tree, Ref: ref}, Family: "f", Variant: v, BaseConfig: "tinyconfig"})
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		return k
	}
	seen := 0
	k1 := build("v1", variant(t, "old"))
	if got := compiledSince(t, cache, &seen); strings.Join(got, " ") != "a.c b.c" {
		t.Fatalf("cold build compiled %v", got)
	}
	if k1.GitCommit == "" || k1.GitDescribe != "v1" || k1.Dirty {
		t.Fatalf("provenance: commit %q describe %q dirty %v", k1.GitCommit, k1.GitDescribe, k1.Dirty)
	}
	build("HEAD~1", variant(t, "mid"))
	if got := compiledSince(t, cache, &seen); strings.Join(got, " ") != "b.c" {
		t.Fatalf("v1 -> v2 should recompile only b.c, compiled %v", got)
	}
	build("main", variant(t, "new"))
	if got := compiledSince(t, cache, &seen); strings.Join(got, " ") != "c.c" {
		t.Fatalf("v2 -> v3 should compile only c.c, compiled %v", got)
	}
	patched := variantUser(t, "patched", "--- a/a.c\n+++ b/a.c\n@@ -1,3 +1,3 @@\n a 1\n-a 2\n+a two\n a 3\n")
	kp := build("main", patched)
	if got := compiledSince(t, cache, &seen); strings.Join(got, " ") != "a.c" {
		t.Fatalf("a patch on a.c should recompile only a.c, compiled %v", got)
	}
	img, _ := os.ReadFile(kp.BzImage)
	if !strings.Contains(string(img), "a two") || !strings.Contains(string(img), "c 1") {
		t.Fatalf("patched image: %s", img)
	}
	// The same commit + patches + config is never compiled twice.
	if k := build("v1", variant(t, "old")); !k.Cached {
		t.Fatalf("v1 rebuilt")
	}
	// One workspace (tree and build dir) for every ref of the tree.
	if dirs, _ := filepath.Glob(filepath.Join(cache, "ws", "*", "build-*")); len(dirs) != 1 {
		t.Fatalf("want one build dir for all refs, have %v", dirs)
	}
	// The user's tree was never touched.
	if out, _ := os.ReadFile(filepath.Join(tree, "a.c")); string(out) != "a 1\na 2\na 3\n" {
		t.Fatalf("user's tree modified: %q", out)
	}
}

// variantUser is a variant of a user's own patches (patches.ParseUser).
func variantUser(t *testing.T, name string, texts ...string) *patches.Variant {
	return variantParsed(t, patches.ParseUser, name, texts...)
}

func TestGitSourceBadInput(t *testing.T) {
	tree := gitTree(t)
	cache := t.TempDir()
	b := &Builder{CacheDir: cache, Jobs: 1}
	ctx := context.Background()
	req := func(src GitSource) Request {
		return Request{Source: src, Family: "f", Variant: variant(t, "v"), BaseConfig: "tinyconfig"}
	}
	var ue *UnknownRefError
	if _, err := b.Build(ctx, req(GitSource{Tree: tree, Ref: "no-such-branch"})); !errors.As(err, &ue) || !strings.Contains(err.Error(), "no-such-branch") {
		t.Errorf("unknown ref: %v", err)
	}
	var ng *NotGitError
	if _, err := b.Build(ctx, req(GitSource{Tree: t.TempDir(), Ref: "HEAD"})); !errors.As(err, &ng) {
		t.Errorf("not a git tree: %v", err)
	}
	// Dirty: refused at HEAD unless allowed; then measured and recorded.
	testfile.Write(t, filepath.Join(tree, "b.c"), "b local edit\n")
	var de *DirtyError
	if _, err := b.Build(ctx, req(GitSource{Tree: tree, Ref: "HEAD"})); !errors.As(err, &de) || !strings.Contains(err.Error(), "b.c") || !strings.Contains(err.Error(), "--allow-dirty") {
		t.Errorf("dirty tree: %v", err)
	}
	// A named commit is exactly that commit: the edit does not matter.
	if _, err := b.Build(ctx, req(GitSource{Tree: tree, Ref: "v1"})); err != nil {
		t.Errorf("named ref of a dirty tree: %v", err)
	}
	k, err := b.Build(ctx, req(GitSource{Tree: tree, Ref: "HEAD", AllowDirty: true}))
	if err != nil {
		t.Fatal(err)
	}
	img, _ := os.ReadFile(k.BzImage)
	if !k.Dirty || !strings.Contains(k.SourceID, "+dirty:") || !strings.Contains(string(img), "b local edit") {
		t.Fatalf("dirty build: dirty=%v source %s image %q", k.Dirty, k.SourceID, img)
	}
}

func TestGitApplySemanticsAndAtomicSeries(t *testing.T) {
	src := newFakeSource(t)
	testfile.Write(t, filepath.Join(src.dir, "old.h"), "x\n")
	testfile.Write(t, filepath.Join(src.dir, "gone.h"), "bye\n")
	testfile.Write(t, filepath.Join(src.dir, "run.sh"), "#!/bin/sh\n")
	cache := t.TempDir()
	b := &Builder{CacheDir: cache, Jobs: 1}
	ctx := context.Background()
	gitDiff := "diff --git a/old.h b/new.h\nsimilarity index 100%\nrename from old.h\nrename to new.h\n" +
		"diff --git a/gone.h b/gone.h\ndeleted file mode 100644\n--- a/gone.h\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" +
		"diff --git a/added.h b/added.h\nnew file mode 100644\n--- /dev/null\n+++ b/added.h\n@@ -0,0 +1 @@\n+hello\n" +
		"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
	v := variantUser(t, "gitty", gitDiff)
	if _, err := b.Build(ctx, Request{Source: src, Family: "f", Variant: v, BaseConfig: "tinyconfig"}); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(filepath.Dir(mustGlob(t, filepath.Join(cache, "ws", "*", "tree"))), "tree")
	for f, want := range map[string]bool{"new.h": true, "old.h": false, "gone.h": false, "added.h": true} {
		if _, err := os.Stat(filepath.Join(tree, f)); (err == nil) != want {
			t.Errorf("%s exists=%v, want %v", f, err == nil, want)
		}
	}
	if st, _ := os.Stat(filepath.Join(tree, "run.sh")); st == nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("mode change not applied: %v", st)
	}
	// A series whose second patch fails: nothing of the first is left.
	v2 := variantUser(t, "half", "--- a/src.c\n+++ b/src.c\n@@ -1,2 +1,2 @@\n-int a;\n+int b;\n int flush(void)\n",
		"--- a/new.h\n+++ b/new.h\n@@ -1 +1 @@\n-no such line\n+y\n")
	_, err := b.Build(ctx, Request{Source: src, Family: "f", Variant: v2, BaseConfig: "tinyconfig"})
	var pe *PatchError
	if !errors.As(err, &pe) || pe.Patch != "half-1.patch" || pe.File != "new.h (No such file or directory)" {
		t.Fatalf("want the second patch named, got %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(tree, "src.c"))
	if !strings.HasPrefix(string(data), "int a;") {
		t.Fatalf("first patch of a failed series left behind: %q", data)
	}
	for f, want := range map[string]bool{"old.h": true, "gone.h": true, "new.h": false, "added.h": false} {
		if _, err := os.Stat(filepath.Join(tree, f)); (err == nil) != want {
			t.Errorf("after a failed switch %s exists=%v, want %v (tree not back at its base)", f, err == nil, want)
		}
	}
	if st, _ := os.Stat(filepath.Join(tree, "run.sh")); st == nil || st.Mode().Perm()&0o100 != 0 {
		t.Errorf("mode change not undone: %v", st)
	}
}

func mustGlob(t *testing.T, pattern string) string {
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Fatalf("%s: %v", pattern, m)
	}
	return m[0]
}

func TestStrictApplyFuzzAndSymlinks(t *testing.T) {
	src := newFakeSource(t)
	ctx := context.Background()
	// Context that differs in its first line: refused without fuzz,
	// applied with --fuzz 1.
	fuzzy := "--- a/src.c\n+++ b/src.c\n@@ -1,5 +1,5 @@\n int CHANGED;\n int flush(void)\n {\n-\treturn relock_if_needed();\n+\treturn relock_always();\n }\n"
	b := &Builder{CacheDir: t.TempDir(), Jobs: 1}
	_, err := b.Build(ctx, Request{Source: src, Family: "f", Variant: variantUser(t, "fz", fuzzy), BaseConfig: "tinyconfig"})
	var pe *PatchError
	if !errors.As(err, &pe) || pe.Hunk != 1 || pe.File != "src.c" {
		t.Fatalf("fuzzy hunk applied without --fuzz: %v", err)
	}
	if _, err := b.Build(ctx, Request{Source: src, Family: "f", Variant: variantUser(t, "fz", fuzzy), BaseConfig: "tinyconfig", Fuzz: 1}); err != nil {
		t.Fatalf("with fuzz 1: %v", err)
	}
	// A symlinked directory in the tree that leads outside it.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(src.dir, "link")); err != nil {
		t.Fatal(err)
	}
	b = &Builder{CacheDir: t.TempDir(), Jobs: 1} // a pristine copy that has the link
	through := "--- a/link/evil.c\n+++ b/link/evil.c\n@@ -0,0 +1 @@\n+x\n"
	_, err = b.Build(ctx, Request{Source: src, Family: "f", Variant: variantUser(t, "sym", through), BaseConfig: "tinyconfig"})
	var se *SymlinkError
	if !errors.As(err, &se) || se.Link != "link" {
		t.Fatalf("patch through a symlink: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside the tree: %v", entries)
	}
}
