package filecopy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
)

func TestReplaceCreatesWithPermAndTruncates(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	testfile.Write(t, src, "new")
	if err := Replace(src, dst, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := testfile.Read(t, dst); got != "new" {
		t.Fatalf("dst = %q, want %q", got, "new")
	}
	if st, err := os.Stat(dst); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Fatalf("dst mode %v (%v), want the owner's execute bit of perm 0700", st.Mode(), err)
	}
	// A longer old file must not leave its tail behind.
	testfile.Write(t, dst, "a much longer old content")
	if err := Replace(src, dst, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := testfile.Read(t, dst); got != "new" {
		t.Fatalf("replaced dst = %q, want %q", got, "new")
	}
}

func TestCreateNewRefusesAnExistingFile(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	testfile.Write(t, src, "new")
	testfile.Write(t, dst, "theirs")
	if err := CreateNew(src, dst, 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateNew over an existing file: %v, want fs.ErrExist", err)
	}
	if got := testfile.Read(t, dst); got != "theirs" {
		t.Fatalf("existing dst = %q, want it untouched", got)
	}
	fresh := filepath.Join(dir, "fresh")
	if err := CreateNew(src, fresh, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := testfile.Read(t, fresh); got != "new" {
		t.Fatalf("fresh = %q, want %q", got, "new")
	}
}

func TestMissingSourceCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "dst")
	if err := Replace(filepath.Join(dir, "absent"), dst, 0o600); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Replace from a missing source: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("dst exists after a failed copy: %v", err)
	}
}
