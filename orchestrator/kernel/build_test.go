package kernel

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/patches"
)

// fakeTree is a tiny "kernel": its Makefile knows the targets the builder
// runs (a base config, olddefconfig that drops CONFIG_DROPME like an unmet
// dependency, and bzImage that "compiles" src.c and counts compiles).
const fakeMakefile = `
tinyconfig:
	printf 'CONFIG_BASE=y\n' > $(O)/.config
olddefconfig:
	grep -v DROPME $(O)/.config > $(O)/.config.new; mv $(O)/.config.new $(O)/.config
bzImage:
	@echo "  CC      src.o"
	@grep -q SYNTAX src.c && { echo "src.c:1:1: error: expected ';' before '}' token"; exit 2; } || true
	mkdir -p $(O)/arch/x86/boot
	cat src.c $(O)/.config > $(O)/arch/x86/boot/bzImage
	echo compiled >> $(O)/compiles
`

type fakeSource struct{ dir string }

func (f fakeSource) Identity(context.Context) (string, error) { return "fake:1", nil }
func (f fakeSource) Unpack(ctx context.Context, dir string) error {
	return run(ctx, "", nil, "cp", "-a", f.dir+"/.", dir)
}
func (f fakeSource) String() string { return "fake tree" }

func newFakeSource(t *testing.T) fakeSource {
	dir := t.TempDir()
	testfile.Write(t, filepath.Join(dir, "Makefile"), fakeMakefile)
	testfile.Write(t, filepath.Join(dir, "src.c"), "int a;\nint flush(void)\n{\n\treturn relock_if_needed();\n}\n")
	return fakeSource{dir}
}

const goodPatch = `What: test
Source: test
Base: fake
---
--- a/src.c
+++ b/src.c
@@ -1,5 +1,5 @@
 int a;
 int flush(void)
 {
-	return relock_if_needed();
+	return relock_always();
 }
`

const badPatch = `What: test
Source: test
Base: fake
---
--- a/src.c
+++ b/src.c
@@ -1,5 +1,5 @@
 int a;
 int flush(void)
 {
-	return something_else();
+	return relock_always();
 }
`

// variant is a variant of the patches in patchTexts, parsed as the
// project's own (patches.Parse).
func variant(t *testing.T, name string, patchTexts ...string) *patches.Variant {
	return variantParsed(t, patches.Parse, name, patchTexts...)
}

// variantParsed is a variant of the patches in texts, each parsed by
// parse under the name NAME-I.patch.
func variantParsed(t *testing.T, parse func(name string, text []byte) (*patches.Patch, error), name string, texts ...string) *patches.Variant {
	t.Helper()
	v := &patches.Variant{Name: name}
	for i, text := range texts {
		p, err := parse(name+"-"+string(rune('0'+i))+".patch", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		v.Files = append(v.Files, p)
	}
	return v
}

func compiles(t *testing.T, cache string) int {
	matches, _ := filepath.Glob(filepath.Join(cache, "ws", "*", "build-*", "compiles"))
	n := 0
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		n += strings.Count(string(data), "compiled")
	}
	return n
}

func TestBuildCacheAndVariantSwitch(t *testing.T) {
	src := newFakeSource(t)
	cache := t.TempDir()
	b := &Builder{CacheDir: cache, Jobs: 1}
	ctx := context.Background()
	req := func(v *patches.Variant) Request {
		return Request{Source: src, Family: "fam", Variant: v, BaseConfig: "tinyconfig",
			Fragments: []Fragment{{Name: "f.config", Data: []byte("CONFIG_BASE=y\n")}}}
	}
	shipped := variant(t, "shipped")
	patched := variant(t, "patched", goodPatch)

	k1, err := b.Build(ctx, req(shipped))
	if err != nil {
		t.Fatal(err)
	}
	k2, err := b.Build(ctx, req(patched))
	if err != nil {
		t.Fatal(err)
	}
	img1, _ := os.ReadFile(k1.BzImage)
	img2, _ := os.ReadFile(k2.BzImage)
	if !strings.Contains(string(img1), "relock_if_needed") || !strings.Contains(string(img2), "relock_always") {
		t.Fatalf("images do not reflect their variants:\n%s\n---\n%s", img1, img2)
	}
	if k1.Key == k2.Key || len(k2.PatchSHA256) != 1 || k2.ConfigSHA256 == "" || k2.SourceID != "fake:1" {
		t.Fatalf("provenance: %+v", k2)
	}
	// Both variants share one build directory.
	if dirs, _ := filepath.Glob(filepath.Join(cache, "ws", "*", "build-*")); len(dirs) != 1 {
		t.Fatalf("want one shared build dir, have %v", dirs)
	}
	before := compiles(t, cache)
	for _, v := range []*patches.Variant{shipped, patched} {
		k, err := b.Build(ctx, req(v))
		if err != nil {
			t.Fatal(err)
		}
		if !k.Cached {
			t.Fatalf("rebuild of %s not cached", v.Name)
		}
	}
	if after := compiles(t, cache); after != before {
		t.Fatalf("cached rebuild compiled %d more times", after-before)
	}
	// The pristine tree was never written through the hardlinked worktree.
	pristine, _ := filepath.Glob(filepath.Join(cache, "src", "*", "src.c"))
	data, _ := os.ReadFile(pristine[0])
	if !strings.Contains(string(data), "relock_if_needed") {
		t.Fatalf("pristine tree modified: %s", data)
	}
}

func TestPatchThatDoesNotApply(t *testing.T) {
	src := newFakeSource(t)
	cache := t.TempDir()
	b := &Builder{CacheDir: cache, Jobs: 1}
	ctx := context.Background()
	// First a good build, so there is something to lose.
	good, err := b.Build(ctx, Request{Source: src, Family: "fam", Variant: variant(t, "patched", goodPatch), BaseConfig: "tinyconfig"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Build(ctx, Request{Source: src, Family: "fam", Variant: variant(t, "bad", badPatch), BaseConfig: "tinyconfig"})
	var pe *PatchError
	if !errors.As(err, &pe) {
		t.Fatalf("want PatchError, got %v", err)
	}
	if pe.Patch != "bad-0.patch" || pe.File != "src.c" || pe.Hunk != 1 {
		t.Fatalf("error does not name patch, file and hunk: %+v", pe)
	}
	for _, want := range []string{"bad-0.patch", "src.c", "hunk #1"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("message %q lacks %q", err, want)
		}
	}
	if _, err := os.Stat(good.BzImage); err != nil {
		t.Fatalf("earlier build lost: %v", err)
	}
	if n := compiles(t, cache); n != 1 {
		t.Fatalf("a failed patch compiled something (%d compiles)", n)
	}
	// The tree is usable afterwards: the good variant still builds (cached).
	if _, err := b.Build(ctx, Request{Source: src, Family: "fam", Variant: variant(t, "patched", goodPatch), BaseConfig: "tinyconfig"}); err != nil {
		t.Fatal(err)
	}
}

func TestParseApplyOutput(t *testing.T) {
	p, err := patches.ParseUser("0001.patch", []byte("--- a/kernel/cgroup/rstat.c\n+++ b/kernel/cgroup/rstat.c\n@@ -10,1 +10,1 @@\n-a\n+b\n@@ -336,1 +336,1 @@\n-c\n+d\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := "Checking patch kernel/cgroup/rstat.c...\nerror: while searching for:\nc\n\nerror: patch failed: kernel/cgroup/rstat.c:336\nerror: kernel/cgroup/rstat.c: patch does not apply\n"
	e := ParseApplyOutput(p, out)
	if e.File != "kernel/cgroup/rstat.c" || e.Hunk != 2 || e.Line != 336 {
		t.Fatalf("%+v", e)
	}
	e = ParseApplyOutput(p, "Checking patch kernel/cgroup/rstat.c...\nerror: kernel/cgroup/rstat.c: No such file or directory\n")
	if e.File != "kernel/cgroup/rstat.c (No such file or directory)" {
		t.Fatalf("%+v", e)
	}
	offs := Offsets("0001.patch", "Checking patch mm/swap.c...\nHunk #1 succeeded at 340 (offset 4 lines).\nApplied patch mm/swap.c cleanly.\n")
	if len(offs) != 1 || offs[0] != "0001.patch: mm/swap.c hunk #1 applied at line 340 (offset 4 lines)" {
		t.Fatalf("offsets %q", offs)
	}
}

func TestFragmentOptionDropped(t *testing.T) {
	src := newFakeSource(t)
	b := &Builder{CacheDir: t.TempDir(), Jobs: 1}
	_, err := b.Build(context.Background(), Request{Source: src, Family: "fam", Variant: variant(t, "v"), BaseConfig: "tinyconfig",
		Fragments: []Fragment{{Name: "guest.config", Data: []byte("CONFIG_BASE=y\nCONFIG_DROPME=y\n")}}})
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want ConfigError, got %v", err)
	}
	if len(ce.Dropped) != 1 || ce.Dropped[0].Option.Name != "CONFIG_DROPME" || !strings.Contains(err.Error(), "guest.config") {
		t.Fatalf("error does not name the option and fragment: %v", err)
	}
}

func TestBuildErrorCarriesCompilerLines(t *testing.T) {
	src := newFakeSource(t)
	testfile.Write(t, filepath.Join(src.dir, "src.c"), "SYNTAX\n")
	b := &Builder{CacheDir: t.TempDir(), Jobs: 1}
	_, err := b.Build(context.Background(), Request{Source: src, Family: "fam", Variant: variant(t, "v"), BaseConfig: "tinyconfig"})
	var be *BuildError
	if !errors.As(err, &be) || len(be.Errors) == 0 || !strings.Contains(be.Errors[0], "error: expected ';'") {
		t.Fatalf("want BuildError with the compiler's line, got %v", err)
	}
}

func TestExpectationChecked(t *testing.T) {
	src := newFakeSource(t)
	b := &Builder{CacheDir: t.TempDir(), Jobs: 1}
	v := variant(t, "claims-fix")
	v.Expect = []patches.Expect{{File: "src.c", Contains: "relock_always"}}
	_, err := b.Build(context.Background(), Request{Source: src, Family: "fam", Variant: v, BaseConfig: "tinyconfig"})
	var ee *ExpectError
	if !errors.As(err, &ee) || ee.File != "src.c" {
		t.Fatalf("want ExpectError, got %v", err)
	}
}

func TestMissingDebianTarball(t *testing.T) {
	src := DebianSource{Package: "linux-source-6.12", SrcDir: t.TempDir()}
	_, err := src.Identity(context.Background())
	var me *MissingSourceError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "apt-get install linux-source-6.12") {
		t.Fatalf("want an error naming the package, got %v", err)
	}
	b := &Builder{CacheDir: t.TempDir()}
	if _, err := b.Build(context.Background(), Request{Source: src, Family: "f", Variant: &patches.Variant{Name: "v"}, BaseConfig: "tinyconfig"}); !errors.As(err, &me) {
		t.Fatalf("Build: want MissingSourceError, got %v", err)
	}
}

func TestGitSource(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if err := run(ctx, dir, nil, "git", args...); err != nil {
			t.Fatal(err)
		}
	}
	testfile.Write(t, filepath.Join(dir, "Makefile"), "all:\n")
	run(ctx, dir, nil, "git", "add", "Makefile")
	if err := run(ctx, dir, nil, "git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "mk"); err != nil {
		t.Fatal(err)
	}
	g := GitSource{Tree: dir, Ref: "HEAD"}
	id, err := g.Identity(ctx)
	if err != nil || !strings.HasPrefix(id, "git:") || len(id) != 44 {
		t.Fatalf("identity %q, %v", id, err)
	}
	out := t.TempDir()
	if err := g.Unpack(ctx, out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "Makefile")); err != nil {
		t.Fatalf("export: %v", err)
	}
	if _, err := (GitSource{Tree: dir, Ref: "no-such-ref"}).Identity(ctx); err == nil || !strings.Contains(err.Error(), "no-such-ref") {
		t.Fatalf("bad ref: %v", err)
	}
}

func TestPreemption(t *testing.T) {
	for cfg, want := range map[string]string{
		"CONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT_DYNAMIC is not set\n":         "none",
		"CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\nCONFIG_BUG=y\n": "voluntary (dynamic)",
		"CONFIG_PREEMPT=y\n":    "full",
		"CONFIG_PREEMPT_RT=y\n": "rt",
		"CONFIG_SMP=y\n":        "unknown",
	} {
		if got := Preemption([]byte(cfg)); got != want {
			t.Errorf("Preemption(%q) = %q, want %q", cfg, got, want)
		}
	}
}

// The guest fragment pins Debian's preemption model; preempt-full.config
// on top of it asks for full preemption.
func TestFragmentsPinPreemption(t *testing.T) {
	guest, err := FragmentData("guest.config")
	if err != nil {
		t.Fatal(err)
	}
	if got := Preemption(guest); got != "voluntary (dynamic)" {
		t.Fatalf("guest.config: %s", got)
	}
	full, err := FragmentData("preempt-full.config")
	if err != nil {
		t.Fatal(err)
	}
	if got := Preemption(append(append([]byte(nil), guest...), full...)); got != "full (dynamic)" {
		t.Fatalf("guest.config + preempt-full.config: %s", got)
	}
}

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		n, est int64
		cold   bool
		want   string
	}{
		{300, 1200, true, "compiled 300 of ~1200 files (25%), ~3m0s left"},
		{300, 0, true, "compiled 300 files (first build of this config: no estimate yet)"},
		{30, 1200, false, "compiled 30 files (incremental: only what changed)"},
		{1250, 1200, true, "compiled 1250 of ~1200 files, linking soon"},
	} {
		if got, _ := progressLine(tc.n, tc.cold, tc.est, time.Minute); got != tc.want {
			t.Errorf("progressLine(%d, %v, %d) = %q, want %q", tc.n, tc.cold, tc.est, got, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), "stats", "build-x.json")
	writeBuildStats(path, buildStats{Files: 1480, Seconds: 534})
	if st := readBuildStats(path); st.Files != 1480 {
		t.Fatalf("stats round trip: %+v", st)
	}
}
