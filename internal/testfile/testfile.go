// Package testfile writes and reads the files a test lays out, failing the
// test on any error: the one definition of the write and read helpers that
// tests of several packages had each written for themselves.
package testfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes data to path (mode 0644), making its parent directories,
// and returns path, so that a test can write a file and name it in one
// expression.
func Write(t testing.TB, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Read returns path's contents.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Golden compares got with the golden file at path and fails t where they
// differ; with KREGRESS_UPDATE_GOLDEN set in the environment it rewrites
// the file with got instead (making its directories).
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if os.Getenv("KREGRESS_UPDATE_GOLDEN") != "" {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (KREGRESS_UPDATE_GOLDEN=1 writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from today's output:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
