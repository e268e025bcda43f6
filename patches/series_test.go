package patches

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
)

// formatPatch is what `git format-patch` writes for one commit.
func formatPatch(n, m int, subject, file, old, new string) string {
	return "From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 00:00:00 2001\n" +
		"From: Jane Dev <jane@example.org>\n" +
		"Date: Tue, 1 Dec 2026 10:00:00 +0000\n" +
		"Subject: [PATCH v2 " + itoa(n) + "/" + itoa(m) + "] " + subject + "\n" +
		"Message-Id: <20261201." + itoa(n) + "@example.org>\n\n" +
		"Why this change.\n\nSigned-off-by: Jane Dev <jane@example.org>\n---\n " + file + " | 2 +-\n 1 file changed\n\n" +
		"diff --git a/" + file + " b/" + file + "\nindex 1111111..2222222 100644\n--- a/" + file + "\n+++ b/" + file + "\n" +
		"@@ -1,3 +1,3 @@\n line1\n-" + old + "\n+" + new + "\n line3\n-- \n2.39.5\n\n"
}

func itoa(n int) string { return string(rune('0' + n)) }

func TestReadSeriesFormatPatch(t *testing.T) {
	dir := t.TempDir()
	f := testfile.Write(t, filepath.Join(dir, "0001-x.patch"), formatPatch(1, 1, "mm: make it faster", "mm/a.c", "old", "new"))
	ps, err := ReadSeries(f)
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	if len(ps) != 1 || p.Subject != "mm: make it faster" || p.Author != "Jane Dev <jane@example.org>" ||
		p.MessageID != "20261201.1@example.org" || p.Date == "" {
		t.Fatalf("mail headers: %+v", p)
	}
	if len(p.Files) != 1 || p.Files[0] != "mm/a.c" || len(p.Diffs[0].Hunks) != 1 {
		t.Fatalf("diff: %+v", p.Diffs)
	}
}

func TestReadSeriesMboxOrdersAndSkipsCoverLetter(t *testing.T) {
	dir := t.TempDir()
	cover := "From git@z Thu Jan  1 00:00:00 1970\nFrom: Jane Dev <jane@example.org>\nSubject: [PATCH v2 0/2] two changes\n\nCover letter, no diff.\n\n"
	mbox := cover + formatPatch(2, 2, "second", "b.c", "x", "y") + formatPatch(1, 2, "first", "a.c", "x", "y")
	ps, err := ReadSeries(testfile.Write(t, filepath.Join(dir, "thread.mbox"), mbox))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Subject != "first" || ps[1].Subject != "second" {
		t.Fatalf("want first, second; got %d patches: %v", len(ps), subjects(ps))
	}
	if !strings.Contains(ps[0].Name, "thread.mbox#") {
		t.Fatalf("name %q does not say which message", ps[0].Name)
	}
}

func subjects(ps []*Patch) []string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Subject)
	}
	return s
}

func TestReadSeriesDirectoryAndQuilt(t *testing.T) {
	dir := t.TempDir()
	testfile.Write(t, filepath.Join(dir, "0002-b.patch"), formatPatch(2, 2, "second", "b.c", "x", "y"))
	testfile.Write(t, filepath.Join(dir, "0001-a.patch"), formatPatch(1, 2, "first", "a.c", "x", "y"))
	ps, err := ReadSeries(dir)
	if err != nil || len(ps) != 2 || ps[0].Subject != "first" {
		t.Fatalf("directory: %v %v", subjects(ps), err)
	}
	// A quilt series file decides the order (and which patches).
	testfile.Write(t, filepath.Join(dir, "series"), "# quilt\n0002-b.patch -p1\n\n0001-a.patch\n")
	ps, err = ReadSeries(dir)
	if err != nil || len(ps) != 2 || ps[0].Subject != "second" {
		t.Fatalf("quilt dir: %v %v", subjects(ps), err)
	}
	ps, err = ReadSeries(filepath.Join(dir, "series"))
	if err != nil || len(ps) != 2 {
		t.Fatalf("quilt file: %v %v", subjects(ps), err)
	}
	testfile.Write(t, filepath.Join(dir, "series"), "0001-a.patch -p0\n")
	if _, err := ReadSeries(dir); err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "-p0") {
		t.Fatalf("-p0 accepted: %v", err)
	}
	testfile.Write(t, filepath.Join(dir, "series"), "missing.patch\n")
	if _, err := ReadSeries(dir); err == nil || !strings.Contains(err.Error(), "missing.patch") {
		t.Fatalf("missing quilt patch: %v", err)
	}
}

func TestReadSeriesPlainDiffGitFeatures(t *testing.T) {
	dir := t.TempDir()
	diff := "diff --git a/old.c b/new.c\nsimilarity index 90%\nrename from old.c\nrename to new.c\n" +
		"diff --git a/gone.c b/gone.c\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/gone.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" +
		"diff --git a/added.sh b/added.sh\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/added.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+--- not a header\n" +
		"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
	ps, err := ReadSeries(testfile.Write(t, filepath.Join(dir, "x.diff"), diff))
	if err != nil {
		t.Fatal(err)
	}
	d := ps[0].Diffs
	if len(d) != 4 {
		t.Fatalf("want 4 file diffs, got %+v", d)
	}
	if !d[0].Renamed || d[0].OldPath != "old.c" || d[0].NewPath != "new.c" {
		t.Errorf("rename: %+v", d[0])
	}
	if !d[1].Deleted || d[1].NewPath != "" || d[1].OldPath != "gone.c" {
		t.Errorf("delete: %+v", d[1])
	}
	if !d[2].New || d[2].NewPath != "added.sh" || d[2].NewMode != "100755" || len(d[2].Hunks) != 1 {
		t.Errorf("new file: %+v", d[2])
	}
	if d[3].OldMode != "100644" || d[3].NewMode != "100755" {
		t.Errorf("mode change: %+v", d[3])
	}
	want := []string{"old.c", "new.c", "gone.c", "added.sh", "run.sh"}
	if strings.Join(ps[0].Files, ",") != strings.Join(want, ",") {
		t.Errorf("files %v, want %v", ps[0].Files, want)
	}
}

func TestReadSeriesBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadSeries(filepath.Join(dir, "nope.patch")); err == nil || !strings.Contains(err.Error(), "nope.patch: no such file") {
		t.Errorf("missing file: %v", err)
	}
	mbox := "From git@z Thu Jan  1 00:00:00 1970\nFrom: a@b\nSubject: hello\n\nno diff\n\nFrom git@z Thu Jan  1 00:00:00 1970\nFrom: c@d\nSubject: Re: hello\n\nstill none\n"
	if _, err := ReadSeries(testfile.Write(t, filepath.Join(dir, "talk.mbox"), mbox)); err == nil || !strings.Contains(err.Error(), "holds 2 messages and no patch") {
		t.Errorf("mbox without patch: %v", err)
	}
	if _, err := ReadSeries(testfile.Write(t, filepath.Join(dir, "empty", "README"), "x")); err == nil {
		t.Errorf("directory without patches accepted")
	}
	for name, diff := range map[string]string{
		"dotdot":   "--- a/../outside\n+++ b/../outside\n@@ -1 +1 @@\n-a\n+b\n",
		"absolute": "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
		"gitdir":   "diff --git a/.git/config b/.git/config\n--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n",
		"rename":   "diff --git a/x b/y\nrename from x\nrename to ../../y\n",
	} {
		_, err := ReadSeries(testfile.Write(t, filepath.Join(dir, name+".patch"), diff))
		var pe *PathError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), name+".patch") {
			t.Errorf("%s: want a PathError naming the patch, got %v", name, err)
		}
	}
	cut := "--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n a\n-b\n"
	if _, err := ReadSeries(testfile.Write(t, filepath.Join(dir, "cut.patch"), cut)); err == nil || !strings.Contains(err.Error(), "hunk #1 of x.c") {
		t.Errorf("truncated hunk: %v", err)
	}
}
