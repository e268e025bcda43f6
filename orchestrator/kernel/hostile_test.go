package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/proctest"
	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/patches"
)

// treeHash hashes a tree's paths, types, permissions, symlink targets and
// file bytes: two trees hash alike only if they are alike.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		info, err := de.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", rel, info.Mode())
		switch {
		case info.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			line += " " + hex.EncodeToString(sum[:])
		case info.Mode().Type() == fs.ModeSymlink:
			target, _ := os.Readlink(path)
			line += " -> " + target
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// lyingPatch is a patch whose parsed file list names Makefile while its
// bytes change src.c: a parser gap like mismatched ---/+++ and diff --git headers
// (which the parser now refuses itself), built by hand to prove the
// workspace does not depend on the parser being right.
func lyingPatch(t *testing.T, name string) *patches.Patch {
	t.Helper()
	p, err := patches.ParseUser(name, []byte("--- a/Makefile\n+++ b/Makefile\n@@ -1 +1 @@\n-x\n+y\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Data = []byte("diff --git a/Makefile b/Makefile\n--- a/src.c\n+++ b/src.c\n@@ -1,2 +1,2 @@\n-int a;\n+int CANDIDATE;\n int flush(void)\n")
	return p
}

// Variants from hostile patches built in turn
// never leave their change in the baseline: after each, the base tree's
// hash equals its source's, and the base kernel carries no candidate.
func TestHostileVariantsLeaveBaseTreeEqualToSource(t *testing.T) {
	src := newFakeSource(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	testfile.Write(t, secret, "keep me\n")
	srcHash := treeHash(t, src.dir)
	cache := t.TempDir()
	b := &Builder{CacheDir: cache, Jobs: 1}
	ctx := context.Background()
	req := func(v *patches.Variant) Request {
		return Request{Source: src, Family: "f", Variant: v, BaseConfig: "tinyconfig"}
	}
	// Candidate 1: git writes src.c, the parsed list says Makefile.
	liar := &patches.Variant{Name: "liar", Files: []*patches.Patch{lyingPatch(t, "liar.patch")}}
	_, err := b.Build(ctx, req(liar))
	var gap *ParserGapError
	if !errors.As(err, &gap) || gap.File != "src.c" {
		t.Fatalf("lying patch: want a ParserGapError naming src.c, got %v", err)
	}
	// Candidate 2: a symlink out of the tree, then a write through it.
	link := "diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+" + outside + "\n\\ No newline at end of file\n"
	through := "--- a/evil/secret\n+++ b/evil/secret\n@@ -1 +1 @@\n-keep me\n+gone\n"
	_, err = b.Build(ctx, req(variantUser(t, "sym", link, through)))
	var spe *SymlinkPatchError
	if !errors.As(err, &spe) || spe.Paths[0] != "evil" {
		t.Fatalf("symlink patch: want a SymlinkPatchError, got %v", err)
	}
	base, err := b.Build(ctx, req(variant(t, "base")))
	if err != nil {
		t.Fatal(err)
	}
	tree := mustGlob(t, filepath.Join(cache, "ws", "*", "tree"))
	if got := treeHash(t, tree); got != srcHash {
		t.Fatalf("base tree hash %s, its source's %s", got, srcHash)
	}
	if img, _ := os.ReadFile(base.BzImage); strings.Contains(string(img), "CANDIDATE") || !strings.Contains(string(img), "int a;") {
		t.Fatalf("baseline built with a candidate's change:\n%s", img)
	}
	if data, err := os.ReadFile(secret); err != nil || string(data) != "keep me\n" {
		t.Fatalf("file outside the tree touched: %q, %v", data, err)
	}
}

// fakeWorkspace is src's workspace in a fresh cache, held (locked) until
// the test ends.
func fakeWorkspace(t *testing.T, src Source) *workspace {
	t.Helper()
	b := &Builder{CacheDir: t.TempDir(), Jobs: 1}
	ws, unlock, err := b.workspace(context.Background(), src, "fake:1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	return ws
}

// A change no patch names (a parser gap, a crash between writes, a tool
// writing into the tree) is found and undone when the tree goes back to
// its base: the base's hash equals its source's again.
func TestBaseVerifiedAndRepairedAfterSwitch(t *testing.T) {
	src := newFakeSource(t)
	srcHash := treeHash(t, src.dir)
	ctx := context.Background()
	ws := fakeWorkspace(t, src)
	patched := variant(t, "patched", goodPatch).Files
	if _, err := ws.switchTo(ctx, patched, applyOpts{}); err != nil {
		t.Fatal(err)
	}
	// Out-of-band changes: a replaced file (new inode, as git apply
	// writes), an extra file, an extra symlinked directory.
	testfile.Write(t, filepath.Join(ws.tree(), "Makefile.new"), "bzImage:\n\techo CANDIDATE\n")
	if err := os.Rename(filepath.Join(ws.tree(), "Makefile.new"), filepath.Join(ws.tree(), "Makefile")); err != nil {
		t.Fatal(err)
	}
	testfile.Write(t, filepath.Join(ws.tree(), "extra.c"), "int extra;\n")
	if err := os.Symlink(t.TempDir(), filepath.Join(ws.tree(), "linkdir")); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.switchTo(ctx, nil, applyOpts{}); err != nil {
		t.Fatal(err)
	}
	if got := treeHash(t, ws.tree()); got != srcHash {
		t.Fatalf("base tree hash %s after a switch, its source's %s", got, srcHash)
	}
	// And a change made after applying, outside the touched files, fails
	// the patched switch instead of being built.
	testfile.Write(t, filepath.Join(ws.tree(), "stray.c"), "x\n")
	diffs, err := compareTree(ws.pristine, ws.tree(), map[string]bool{"src.c": true})
	if err != nil || len(diffs) != 1 || diffs[0].rel != "stray.c" {
		t.Fatalf("compareTree: %v %v", diffs, err)
	}
}

// A symlink a patch made (allowed explicitly here) is
// never followed by the reset, whatever order the touched files come in:
// the file outside the tree survives every try.
func TestResetNeverFollowsSymlink(t *testing.T) {
	src := newFakeSource(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	testfile.Write(t, secret, "keep me\n")
	ctx := context.Background()
	ws := fakeWorkspace(t, src)
	link := variantUser(t, "l", "diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+"+outside+"\n\\ No newline at end of file\n").Files
	through := variantUser(t, "t", "--- a/evil/secret\n+++ b/evil/secret\n@@ -1 +1 @@\n-keep me\n+gone\n").Files
	// Refused by default.
	var spe *SymlinkPatchError
	if _, err := ws.switchTo(ctx, link, applyOpts{}); !errors.As(err, &spe) {
		t.Fatalf("symlink patch applied without being allowed: %v", err)
	}
	allow := applyOpts{allowSymlinks: true}
	for i := 0; i < 20; i++ {
		if _, err := ws.switchTo(ctx, link, allow); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(filepath.Join(ws.tree(), "evil")); err != nil || st.Mode().Type() != fs.ModeSymlink {
			t.Fatalf("allowed symlink not made: %v", err)
		}
		if _, err := ws.switchTo(ctx, append(append([]*patches.Patch(nil), link...), through...), allow); err == nil {
			t.Fatal("a patch through a symlink applied")
		}
		if data, err := os.ReadFile(secret); err != nil || string(data) != "keep me\n" {
			t.Fatalf("try %d: file outside the tree touched: %q, %v", i, data, err)
		}
	}
	// restoreFile itself refuses to go through the link.
	if _, err := ws.switchTo(ctx, link, allow); err != nil {
		t.Fatal(err)
	}
	var se *SymlinkError
	if err := restoreFile(ws.pristine, ws.tree(), "evil/secret"); !errors.As(err, &se) || se.Link != "evil" {
		t.Fatalf("restore through a symlink: %v", err)
	}
	if _, err := os.Stat(secret); err != nil {
		t.Fatalf("restore deleted the outside file: %v", err)
	}
}

// Concurrent first builds on an empty cache all
// succeed (the tree is created under the workspace lock).
func TestConcurrentFirstUse(t *testing.T) {
	src := newFakeSource(t)
	cache := t.TempDir()
	ctx := context.Background()
	const n = 8
	errs := make([]error, n)
	keys := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b := &Builder{CacheDir: cache, Jobs: 1}
			k, err := b.Build(ctx, Request{Source: src, Family: "f", Variant: variant(t, "patched", goodPatch), BaseConfig: "tinyconfig"})
			errs[i] = err
			if k != nil {
				keys[i] = k.Key
			}
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
		if keys[i] != keys[0] {
			t.Errorf("caller %d built %s, caller 0 %s", i, keys[i], keys[0])
		}
	}
	if n := compiles(t, cache); n != 1 {
		t.Errorf("%d compiles for one kernel asked %d times at once", n, 8)
	}
}

// Cancelling a command run() started (tar, the config
// make, git archive | tar) kills what it started too, not just itself.
func TestRunCancelKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, "", nil, "sh", "-c", `sleep 300 >/dev/null 2>&1 & echo $! > "$1"; wait`, "sh", pidFile)
	}()
	var pid int
	for pid == 0 {
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		time.Sleep(10 * time.Millisecond)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("cancelled command reported success")
	}
	if !proctest.Gone(pid) {
		t.Fatalf("grandchild %d survived the cancel", pid)
	}
}

// slowSource unpacks part of a tree, then blocks in a child process
// until cancelled: Ctrl-C during the unpack.
type slowSource struct {
	fakeSource
	started chan struct{}
}

func (s slowSource) Unpack(ctx context.Context, dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(fakeMakefile), 0o644); err != nil {
		return err
	}
	close(s.started)
	return run(ctx, "", nil, "sleep", "300")
}

// Ctrl-C during the unpack leaves no half-unpacked source in the cache:
// the next build unpacks afresh and succeeds. And a build that waits for
// the workspace lock says who holds it, and gives up on Ctrl-C.
func TestCancelDuringUnpackAndLockWait(t *testing.T) {
	src := newFakeSource(t)
	cache := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	slow := slowSource{fakeSource: src, started: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := (&Builder{CacheDir: cache, Jobs: 1}).Build(ctx, Request{Source: slow, Family: "f", Variant: variant(t, "base"), BaseConfig: "tinyconfig"})
		done <- err
	}()
	<-slow.started
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled unpack succeeded")
	}
	if m, _ := filepath.Glob(filepath.Join(cache, "src", "*", "Makefile")); len(m) != 0 {
		t.Fatalf("half-unpacked source left in the cache: %v", m)
	}
	b := &Builder{CacheDir: cache, Jobs: 1}
	if _, err := b.Build(context.Background(), Request{Source: src, Family: "f", Variant: variant(t, "base"), BaseConfig: "tinyconfig"}); err != nil {
		t.Fatalf("build after a cancelled unpack: %v", err)
	}
	// Hold the workspace lock; a second build waits, names us, and
	// gives up on cancel.
	ws, unlock, err := b.workspace(context.Background(), src, "fake:1")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx2, cancel2 := context.WithCancel(context.Background())
	var msgs []string
	var mu sync.Mutex
	b2 := &Builder{CacheDir: cache, Jobs: 1, Progress: func(format string, args ...any) {
		m := fmt.Sprintf(format, args...)
		mu.Lock()
		msgs = append(msgs, m)
		mu.Unlock()
		if strings.HasPrefix(m, "waiting for") {
			cancel2()
		}
	}}
	_, err = b2.Build(ctx2, Request{Source: src, Family: "f", Variant: variant(t, "patched", goodPatch), BaseConfig: "tinyconfig"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled lock wait: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := fmt.Sprintf("waiting for kernel worktree %s: locked by pid %d on ", ws.dir, os.Getpid())
	found := false
	for _, m := range msgs {
		found = found || strings.HasPrefix(m, want)
	}
	if !found {
		t.Fatalf("no progress line starting %q in %q", want, msgs)
	}
}

// A symlink the parser did not see as one (its mode hidden from the
// parser, as a future parser gap might) is still refused once git has
// made it, and the tree goes back to its base.
func TestSymlinkMadeBehindTheParsersBackRefused(t *testing.T) {
	src := newFakeSource(t)
	ctx := context.Background()
	ws := fakeWorkspace(t, src)
	p := variantUser(t, "l", "diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+/etc\n\\ No newline at end of file\n").Files[0]
	for i := range p.Diffs {
		p.Diffs[i].NewMode = "100644" // the parser's view, wrong
	}
	var spe *SymlinkPatchError
	if _, err := ws.switchTo(ctx, []*patches.Patch{p}, applyOpts{}); !errors.As(err, &spe) || spe.Paths[0] != "evil" {
		t.Fatalf("hidden symlink: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(ws.tree(), "evil")); !os.IsNotExist(err) {
		t.Fatalf("refused symlink left in the tree: %v", err)
	}
}

// Check refuses, without building or creating a workspace, what Build
// would refuse for its input; a good request passes.
func TestCheckRefusesWithoutBuilding(t *testing.T) {
	src := newFakeSource(t)
	cache := t.TempDir()
	b := &Builder{CacheDir: cache, Jobs: 1}
	ctx := context.Background()
	req := func(v *patches.Variant) Request {
		return Request{Source: src, Family: "f", Variant: v, BaseConfig: "tinyconfig"}
	}
	if err := b.Check(ctx, req(variant(t, "good", goodPatch))); err != nil {
		t.Fatalf("good patch: %v", err)
	}
	exp := variant(t, "exp", goodPatch)
	exp.Expect = []patches.Expect{{File: "src.c", Contains: "relock_never"}}
	link := variantUser(t, "sym", "diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+/etc\n\\ No newline at end of file\n")
	for name, v := range map[string]*patches.Variant{
		"does not apply": variant(t, "bad", badPatch),
		"expectation":    exp,
		"symlink":        link,
		"parser gap":     {Name: "liar", Files: []*patches.Patch{lyingPatch(t, "liar.patch")}},
	} {
		var re *RefusedError
		if err := b.Check(ctx, req(v)); !errors.As(err, &re) || re.Variant != v.Name {
			t.Errorf("%s: want a RefusedError for variant %s, got %v", name, v.Name, err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(cache, "ws", "*")); len(m) != 0 || compiles(t, cache) != 0 {
		t.Fatalf("Check made a workspace or compiled: %v", m)
	}
}
