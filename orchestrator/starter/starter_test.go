package starter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
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
	dir := t.TempDir()
	what, err := Write(Spec{File: filepath.Join(dir, "a.yaml"), GitTree: dir, CandRef: "topic", Workload: "rstat"})
	if err != nil || what != "your tree at HEAD against topic" {
		t.Fatalf("a tree and a candidate ref: %q, %v", what, err)
	}
	for _, s := range []Spec{
		{File: filepath.Join(dir, "b.yaml"), BaseRef: "v1", Workload: "rstat"},
		{File: filepath.Join(dir, "c.yaml"), Workload: "no-such-workload"},
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
