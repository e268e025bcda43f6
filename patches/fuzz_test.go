package patches

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
)

// Seeds: every shape of input the parser reads (plain, git, format-patch,
// mbox, renames, modes, binary, quoted paths) and hostile ones (headers
// that disagree, paths out of the tree). They run in every `go test`;
// `make fuzz` mutates them.
var fuzzSeeds = []string{
	"--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n",
	"--- a/x.c\t2024-01-01 00:00:00\n+++ b/x.c\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n",
	"diff --git a/old.h b/new.h\nsimilarity index 100%\nrename from old.h\nrename to new.h\n",
	"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
	"diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+b\n",
	"diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n",
	"diff --git a/bin b/bin\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 1\nIcmZpX0000A01E&C\n\n",
	"diff --git \"a/sp ace\" \"b/sp ace\"\n--- \"a/sp ace\"\n+++ \"b/sp ace\"\n@@ -1 +1 @@\n-a\n+b\n",
	formatPatch(1, 2, "first", "mm/a.c", "x", "y") + formatPatch(2, 2, "second", "mm/b.c", "x", "y"),
	"From git@z Thu Jan  1 00:00:00 1970\nFrom: a@b\nSubject: [PATCH 0/1] cover\n\nno diff\n\n" + formatPatch(1, 1, "one", "kernel/x.c", "p", "q"),
	// Hostile: headers that disagree, symlinks and paths out of the tree.
	"diff --git a/Makefile b/Makefile\n--- a/mm/swap.c\n+++ b/mm/swap.c\n@@ -1 +1 @@\n-a\n+b\n",
	"diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+/outside\n\\ No newline at end of file\n",
	"--- a/evil/secret\n+++ b/evil/secret\n@@ -1 +1 @@\n-a\n+b\n",
	"--- a/../outside\n+++ b/../outside\n@@ -1 +1 @@\n-a\n+b\n",
	"--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
	"diff --git a/x b/y\nrename from x\nrename to ../../y\n",
	"diff --git \"a/\\056git/config\" \"b/\\056git/config\"\n--- \"a/\\056git/config\"\n+++ \"b/\\056git/config\"\n@@ -1 +1 @@\n-a\n+b\n",
	"diff --git \"a/x\\000y\" \"b/x\\000y\"\n--- \"a/x\\000y\"\n+++ \"b/x\\000y\"\n@@ -1 +1 @@\n-a\n+b\n",
	"--- a/x\n+++ b/x\n@@ -1,99999999 +1,99999999 @@\n a\n",
	"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ garbage @@\n",
}

// checkAccepted asserts what every accepted patch must satisfy: at least
// one diff, and no path that could leave the tree or write git's own
// files, whatever the bytes were.
func checkAccepted(t *testing.T, p *Patch) {
	t.Helper()
	if len(p.Diffs) == 0 || len(p.Files) == 0 {
		t.Fatalf("accepted a patch with no diff: %+v", p)
	}
	if len(p.Files) > 2*len(p.Diffs) {
		t.Fatalf("%d files from %d diffs", len(p.Files), len(p.Diffs))
	}
	for _, f := range p.Files {
		if f == "" || strings.HasPrefix(f, "/") || strings.ContainsAny(f, "\x00\n\r") {
			t.Fatalf("accepted path %q", f)
		}
		for _, c := range strings.Split(f, "/") {
			if c == "" || c == "." || c == ".." || c == ".git" {
				t.Fatalf("accepted path %q (component %q)", f, c)
			}
		}
	}
	for _, d := range p.Diffs {
		for _, h := range d.Hunks {
			if h.Number < 1 || h.Number > len(d.Hunks) {
				t.Fatalf("hunk number %d of %d", h.Number, len(d.Hunks))
			}
		}
	}
}

func FuzzParseUser(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseUser("fuzz.patch", data)
		if err != nil {
			if p != nil && p.CheckPaths() == nil && len(p.Diffs) > 0 {
				// ParseUser returns p with a path error only.
				t.Fatalf("error %v but the patch checks clean", err)
			}
			return
		}
		checkAccepted(t, p)
	})
}

// FuzzReadSeries reads the bytes as a file (plain patch or mbox), as a
// user's --patch would be read.
func FuzzReadSeries(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in.mbox")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ps, err := ReadSeries(path)
		if err != nil {
			return
		}
		if len(ps) == 0 {
			t.Fatal("no error and no patch")
		}
		for _, p := range ps {
			checkAccepted(t, p)
		}
	})
}

var mboxIndex = regexp.MustCompile(`#\d+$`)

// FuzzQuiltSeries reads a quilt series file naming patches of its
// directory: no entry may read a file outside that directory.
func FuzzQuiltSeries(f *testing.F) {
	for _, s := range []string{
		"a.patch\n", "a.patch -p1\n# comment\n\nb.patch\n", "a.patch -p0\n", "../a.patch\n",
		"/etc/passwd\n", "sub/../../a.patch\n", "a.patch # trailing\n", "..a.patch\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, series string) {
		root := t.TempDir()
		// A patch outside the series directory that must never be read.
		testfile.Write(t, filepath.Join(root, "a.patch"), "--- a/OUTSIDE\n+++ b/OUTSIDE\n@@ -1 +1 @@\n-a\n+b\n")
		dir := filepath.Join(root, "q")
		testfile.Write(t, filepath.Join(dir, "a.patch"), "--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n")
		testfile.Write(t, filepath.Join(dir, "b.patch"), "--- a/y.c\n+++ b/y.c\n@@ -1 +1 @@\n-a\n+b\n")
		testfile.Write(t, filepath.Join(dir, "series"), series)
		ps, err := ReadSeries(dir)
		if err != nil {
			return
		}
		for _, p := range ps {
			checkAccepted(t, p)
			rel, rerr := filepath.Rel(dir, mboxIndex.ReplaceAllString(p.Name, ""))
			if rerr != nil || strings.HasPrefix(rel, "..") || p.Files[0] == "OUTSIDE" {
				t.Fatalf("series %q read %s, outside %s", series, p.Name, dir)
			}
		}
	})
}
