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
