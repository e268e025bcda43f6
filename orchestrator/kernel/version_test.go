package kernel

import (
	"os"
	"path/filepath"
	"testing"
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
