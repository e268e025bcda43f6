package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/patches"
)

func TestTreeVersion(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("# SPDX-License-Identifier: GPL-2.0\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\nEXTRAVERSION =\n"), 0o644)
	v, err := TreeVersion(dir)
	if err != nil || v != (Version{6, 1, 192}) || v.String() != "6.1.192" {
		t.Fatalf("TreeVersion = %v, %v", v, err)
	}
	if !v.Less(Version{6, 12, 0}) || (Version{6, 12, 0}).Less(v) {
		t.Error("6.1.192 sorts before 6.12")
	}
	if _, err := TreeVersion(t.TempDir()); err == nil {
		t.Error("no Makefile: want an error")
	}
	if _, err := ParseVersion("6.x"); err == nil {
		t.Error("6.x parsed")
	}
}

// A hostile tree's Makefile is a link to a device that never ends, or
// to a file outside the tree: refused naming it, nothing read through
// it.
func TestTreeVersionRefusesALinkedMakefile(t *testing.T) {
	for _, target := range []string{"/dev/zero", "/dev/urandom"} {
		dir := t.TempDir()
		if err := os.Symlink(target, filepath.Join(dir, "Makefile")); err != nil {
			t.Fatal(err)
		}
		_, err := TreeVersion(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "Makefile")+" is a symbolic link") {
			t.Errorf("Makefile -> %s: %v, want it refused as a link", target, err)
		}
		if lacks := makefileLacks(dir); len(lacks) != 2 {
			t.Errorf("Makefile -> %s: the tree check found %v set", target, lacks)
		}
	}
}

// An expect: line's file is read as any file of the tree: a link out of
// it is refused naming the link, not read.
func TestExpectRefusesALink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("CONFIG_SECRET"), 0o600)
	os.MkdirAll(filepath.Join(dir, "kernel"), 0o755)
	os.WriteFile(filepath.Join(dir, "kernel", "core.c"), []byte("int x;\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "kernel", "link.c")); err != nil {
		t.Fatal(err)
	}
	if err := checkExpect("v", dir, patches.Expect{File: "kernel/core.c", Contains: "int x"}); err != nil {
		t.Fatalf("a regular file that holds the text: %v", err)
	}
	err := checkExpect("v", dir, patches.Expect{File: "kernel/link.c", Contains: "SECRET"})
	var ee *ExpectError
	if !errors.As(err, &ee) || ee.Err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "kernel", "link.c")+" is a symbolic link") {
		t.Errorf("a linked file: %v, want it refused as a link", err)
	}
	if err := checkExpect("v", dir, patches.Expect{File: "kernel/none.c", Contains: "x"}); !errors.As(err, &ee) || ee.Err != nil {
		t.Errorf("a missing file: %v, want the plain expectation error", err)
	}
}
