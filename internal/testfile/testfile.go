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

// UpdateEnv names the environment variable that makes every golden test
// rewrite its files from today's output instead of comparing: the one way
// golden files are updated (KREGRESS_UPDATE_GOLDEN=1 go test ./pkg/...).
const UpdateEnv = "KREGRESS_UPDATE_GOLDEN"

// Updating says whether golden files are being rewritten (UpdateEnv
// set): for a test that regenerates a part of a file, which Golden
// cannot compare whole.
func Updating() bool { return os.Getenv(UpdateEnv) != "" }

// Golden compares got with the golden file at path and fails t where they
// differ; with UpdateEnv set in the environment it rewrites the file with
// got instead (making its directories). It is the one golden helper of
// the module's tests.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if Updating() {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s=1 writes it)", err, UpdateEnv)
	}
	if string(want) != got {
		t.Errorf("%s differs from today's output:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
