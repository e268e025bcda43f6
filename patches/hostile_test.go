package patches

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
)

// A diff --git line that names another file than its ---/+++ lines: git
// apply writes mm/swap.c while a reader of the header would list (and
// later restore) Makefile only.
func TestMismatchedGitHeaderRefused(t *testing.T) {
	for name, diff := range map[string]string{
		"both":     "diff --git a/Makefile b/Makefile\nindex 1..2 100644\n--- a/mm/swap.c\n+++ b/mm/swap.c\n@@ -1 +1 @@\n-a\n+b\n",
		"new-side": "diff --git a/Makefile b/Makefile\n--- a/Makefile\n+++ b/mm/swap.c\n@@ -1 +1 @@\n-a\n+b\n",
		"rename":   "diff --git a/x b/y\nrename from x\nrename to y\n--- a/x\n+++ b/z\n@@ -1 +1 @@\n-a\n+b\n",
		"new-file": "diff --git a/n b/n\nnew file mode 100644\n--- a/Makefile\n+++ b/n\n@@ -1 +1 @@\n-a\n+b\n",
	} {
		_, err := ParseUser(name+".patch", []byte(diff))
		var me *MismatchError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), name+".patch") {
			t.Errorf("%s: want a MismatchError naming the patch, got %v", name, err)
		}
	}
	// What git writes itself stays accepted: renames with hunks, new and
	// deleted files.
	for name, diff := range map[string]string{
		"rename":  "diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",
		"new":     "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+b\n",
		"deleted": "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n",
	} {
		if _, err := ParseUser(name+".patch", []byte(diff)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSymlinksListed(t *testing.T) {
	for name, c := range map[string]struct {
		diff string
		want string
	}{
		"new":      {"diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+/outside\n\\ No newline at end of file\n", "evil"},
		"retype":   {"diff --git a/f b/f\nold mode 100644\nnew mode 120000\n", "f"},
		"retarget": {"diff --git a/l b/l\nindex 1111111..2222222 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+/etc\n\\ No newline at end of file\n", "l"},
		"regular":  {"diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", ""},
		"deleted":  {"diff --git a/l b/l\ndeleted file mode 120000\n--- a/l\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n", ""},
	} {
		p, err := ParseUser(name, []byte(c.diff))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := strings.Join(p.Symlinks(), ","); got != c.want {
			t.Errorf("%s: symlinks %q, want %q", name, got, c.want)
		}
	}
}

// A patch file over the cap is refused before it is read into memory
// whole, with an error that names the file and the cap.
func TestPatchSizeCap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "huge.patch")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk, MaxPatchBytes+1 bytes of NULs after a header.
	f.WriteString("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
	if err := f.Truncate(MaxPatchBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadSeries(path)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "huge.patch") || !strings.Contains(err.Error(), "64 MiB") {
		t.Fatalf("want a TooLargeError naming the file and the cap, got %v", err)
	}
	// A quilt series listing one (allowed) file more often than the
	// series cap allows.
	// (The cap lowered to 2 MiB, so the test reads 3 MiB, not 320.)
	defer func(c int64) { seriesCap = c }(seriesCap)
	seriesCap = 2 << 20
	testfile.Write(t, filepath.Join(dir, "q", "big.patch"), "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"+strings.Repeat("x", 1<<20))
	testfile.Write(t, filepath.Join(dir, "q", "series"), strings.Repeat("big.patch\n", 3))
	if _, err := ReadSeries(filepath.Join(dir, "q")); !errors.As(err, &tl) || !strings.Contains(err.Error(), "whole series") {
		t.Fatalf("series over the cap: %v", err)
	}
}
