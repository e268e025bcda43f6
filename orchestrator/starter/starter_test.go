package starter

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
)

// The file written for a patch loads as an experiment, names the patch
// relative to itself, and is never overwritten.
func TestWriteForAPatch(t *testing.T) {
	dir := t.TempDir()
	patch := filepath.Join(dir, "patches", "0001-fix.patch")
	os.MkdirAll(filepath.Dir(patch), 0o755)
	os.WriteFile(patch, []byte("--- a/x\n+++ b/x\n"), 0o644)
	file := filepath.Join(dir, "my-exp.yaml")
	what, err := Write(Spec{File: file, Patches: []string{patch}, Workload: "rstat"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "the base kernel against base + patches/0001-fix.patch"; what != want {
		t.Errorf("what: %q, want %q", what, want)
	}
	text, _ := os.ReadFile(file)
	for _, want := range []string{"# A kregress experiment, my-exp: ", "experiment: my-exp", "- patches/0001-fix.patch", "source: debian"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the file lacks %q:\n%s", want, text)
		}
	}
	if _, _, err := config.Load(file, nil); err != nil {
		t.Fatalf("the starter file does not load: %v\n%s", err, text)
	}
	if _, err := Write(Spec{File: file, Workload: "rstat"}); !usage.Is(err) || !strings.Contains(err.Error(), "never overwrites") {
		t.Fatalf("a second write: %v", err)
	}
}

// A git tree is made absolute with its base at HEAD; refs without a tree,
// an unknown workload and a missing patch are the user's to fix.
func TestWriteRefusals(t *testing.T) {
	dir := gitTree(t, "topic")
	what, err := Write(Spec{File: filepath.Join(dir, "a.yaml"), GitTree: dir, CandRef: "topic", Workload: "rstat"})
	if err != nil || what != "your tree at HEAD against topic" {
		t.Fatalf("a tree and a candidate ref: %q, %v", what, err)
	}
	for _, s := range []Spec{
		{File: filepath.Join(dir, "b.yaml"), BaseRef: "v1", Workload: "rstat"},
		{File: filepath.Join(dir, "c.yaml"), Workload: "no-such-workload"},
		{File: filepath.Join(dir, "f.yaml"), Workload: "benchmark"}, // its declaration is the user's to write
		{File: filepath.Join(dir, "d.yaml"), Patches: []string{filepath.Join(dir, "missing.patch")}, Workload: "rstat"},
		{File: filepath.Join(dir, "e.yaml"), GitTree: filepath.Join(dir, "a.yaml"), Workload: "rstat"},
	} {
		if _, err := Write(s); !usage.Is(err) {
			t.Errorf("%+v: %v, want a usage error", s, err)
		}
		if _, err := os.Stat(s.File); err == nil {
			t.Errorf("%+v: a refused spec wrote its file", s)
		}
	}
}

// init - and init into a missing directory are usage errors naming what
// is wrong, writing nothing (init - wrote a file named "-").
func TestWriteRefusesDashAndMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for file, want := range map[string]string{
		"-":                                    `"-"`,
		"nodir/x.yaml":                         "its directory nodir does not exist",
		filepath.Join(dir, "a.yaml", "b.yaml"): "a.yaml does not exist",
	} {
		os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("mine"), 0o644)
		_, err := Write(Spec{File: file, Workload: "rstat"})
		if !usage.Is(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("init %s: %v, want a usage error saying %s", file, err, want)
		}
		if left, _ := os.ReadDir(dir); len(left) != 1 {
			t.Errorf("init %s left %v", file, left)
		}
	}
}

// Create says what it wrote and how to check it; a refusal writes
// nothing and says nothing.
func TestCreate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "exp.yaml")
	var out strings.Builder
	if err := Create(&out, Spec{File: file, Workload: "rstat"}); err != nil {
		t.Fatal(err)
	}
	if want := "wrote " + file + ": "; !strings.HasPrefix(out.String(), want) || !strings.HasSuffix(out.String(), "\ncheck it: kregress run -c "+file+" --dry-run\n") {
		t.Errorf("Create said %q", out.String())
	}
	out.Reset()
	if err := Create(&out, Spec{File: file, Workload: "rstat"}); !usage.Is(err) || out.Len() != 0 {
		t.Errorf("Create over an existing file: %v, said %q", err, out.String())
	}
}

// With a git tree, the file measures what init says it measures: base at
// --base (default HEAD), patched at --candidate or, without one, at the
// base itself, plus the patches. Without --candidate the patched variant
// used to take the tree's HEAD, blaming the patch for everything between
// the base and HEAD.
func TestWriteGitTreeRefs(t *testing.T) {
	dir := gitTree(t, "v6.12", "topic")
	patch := filepath.Join(dir, "P.patch")
	os.WriteFile(patch, []byte("--- a/x\n+++ b/x\n"), 0o644)
	for _, c := range []struct {
		base, cand            string
		patch                 bool
		wantBase, wantPatched string
		wantPatches           int
		wantWhat              string
	}{
		{base: "v6.12", patch: true, wantBase: "v6.12", wantPatched: "v6.12", wantPatches: 1, wantWhat: "your tree at v6.12 against v6.12 + P.patch"},
		{base: "v6.12", cand: "topic", wantBase: "v6.12", wantPatched: "topic", wantWhat: "your tree at v6.12 against topic"},
		{base: "v6.12", cand: "topic", patch: true, wantBase: "v6.12", wantPatched: "topic", wantPatches: 1, wantWhat: "your tree at v6.12 against topic + P.patch"},
		{patch: true, wantBase: "HEAD", wantPatched: "HEAD", wantPatches: 1, wantWhat: "your tree at HEAD against HEAD + P.patch"},
		{cand: "topic", wantBase: "HEAD", wantPatched: "topic", wantWhat: "your tree at HEAD against topic"},
	} {
		file := filepath.Join(dir, "w.yaml")
		os.Remove(file)
		s := Spec{File: file, GitTree: dir, BaseRef: c.base, CandRef: c.cand, Workload: "rstat"}
		if c.patch {
			s.Patches = []string{patch}
		}
		what, err := Write(s)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if what != c.wantWhat {
			t.Errorf("%+v: says %q, want %q", c, what, c.wantWhat)
		}
		base, patched, gitRef := resolved(t, file)
		if got := effectiveRef(base, gitRef); got != c.wantBase {
			t.Errorf("%+v: base at %q, want %q", c, got, c.wantBase)
		}
		if got := effectiveRef(patched, gitRef); got != c.wantPatched {
			t.Errorf("%+v: patched at %q, want %q", c, got, c.wantPatched)
		}
		if len(patched.Files) != c.wantPatches || len(base.Files) != 0 {
			t.Errorf("%+v: base has %d patches, patched %d, want 0 and %d", c, len(base.Files), len(patched.Files), c.wantPatches)
		}
	}
}

// A ref is a value, written by the YAML encoder: one holding " #" is not
// cut at the comment (the dry run then measured v6.12 against itself) and
// one holding a newline cannot add a key; control characters are refused.
func TestWriteQuotesRefs(t *testing.T) {
	dir := gitTree(t, "v6.12")
	file := filepath.Join(t.TempDir(), "w.yaml")
	// No git ref holds " #" (Write refuses it as a ref the tree does
	// not have): the encoder is checked on the data Write would render.
	d, err := Spec{File: file, GitTree: dir, BaseRef: "v6.12", Workload: "rstat"}.data()
	if err != nil {
		t.Fatal(err)
	}
	d.CandRef = "v6.12 #my-branch"
	text, err := d.render()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, patched, _ := resolved(t, file); patched.Ref != "v6.12 #my-branch" {
		t.Errorf("the candidate read back as %q", patched.Ref)
	}
	evil := filepath.Join(t.TempDir(), "e.yaml")
	if _, err := Write(Spec{File: evil, GitTree: dir, CandRef: "my-branch\nstore: evil.db", Workload: "rstat"}); !usage.Is(err) || !strings.Contains(err.Error(), "--candidate") {
		t.Errorf("a ref with a newline: %v, want a usage error naming --candidate", err)
	}
	bad := filepath.Join(t.TempDir(), "n.yaml")
	if _, err := Write(Spec{File: bad, Name: "x: y\nstore: evil.db", Workload: "rstat"}); !usage.Is(err) || !strings.Contains(err.Error(), "--name") {
		t.Errorf("a name with a newline: %v, want a usage error naming --name", err)
	}
	for _, f := range []string{evil, bad} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("a refused spec wrote %s", f)
		}
	}
}

// resolved loads file and returns its base and patched variants and its
// kernel.git_ref, the ref of variants without one.
func resolved(t *testing.T, file string) (base, patched *patches.Variant, gitRef string) {
	t.Helper()
	cfg, _, err := config.Load(file, nil)
	if err != nil {
		text, _ := os.ReadFile(file)
		t.Fatalf("the starter file does not load: %v\n%s", err, text)
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sel.Variant("base"), sel.Variant("patched"), cfg.Kernel.GitRef
}

// effectiveRef is the ref v is built at, gitRef its file's kernel.git_ref.
func effectiveRef(v *patches.Variant, gitRef string) string {
	if v.Ref != "" {
		return v.Ref
	}
	if gitRef == "" {
		return "HEAD"
	}
	return gitRef
}

// gitTree is a git repository of one commit with a branch for each of
// refs.
func gitTree(t *testing.T, refs ...string) string {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		if out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "one")
	for _, r := range refs {
		git("branch", r)
	}
	return dir
}

// Each ref init writes is checked as the dry run checks it: an unknown
// --candidate or --base, or a tree that is not a git repository, is
// refused naming the flag and the ref, and no file is written.
func TestWriteChecksRefs(t *testing.T) {
	tree := gitTree(t, "topic")
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{GitTree: tree, CandRef: "no-such-branch"}, `--candidate no-such-branch: kernel.git_tree ` + tree + ` has no commit "no-such-branch"`},
		{Spec{GitTree: tree, BaseRef: "v0.0", CandRef: "topic"}, `--base v0.0: kernel.git_tree ` + tree + ` has no commit "v0.0"`},
		{Spec{GitTree: t.TempDir(), CandRef: "topic"}, "is not a git repository"},
	} {
		c.s.File, c.s.Workload = filepath.Join(t.TempDir(), "x.yaml"), "rstat"
		if _, err := Write(c.s); !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error saying %s", c.s, err, c.want)
		}
		if _, err := os.Stat(c.s.File); err == nil {
			t.Errorf("%+v: wrote %s", c.s, c.s.File)
		}
	}
	if _, err := Write(Spec{File: filepath.Join(t.TempDir(), "ok.yaml"), GitTree: tree, CandRef: "topic", Workload: "rstat"}); err != nil {
		t.Fatalf("refs that exist: %v", err)
	}
}
