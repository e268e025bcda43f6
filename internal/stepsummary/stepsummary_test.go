package stepsummary

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestAppendAppendsOnlyUnderGitHubActions(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	called := false
	if err := Append(func(io.Writer) error { called = true; return nil }); err != nil || called {
		t.Fatalf("without GITHUB_STEP_SUMMARY: err %v, called %v", err, called)
	}
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(path, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", path)
	for _, s := range []string{"one\n", "two\n"} {
		if err := Append(func(w io.Writer) error { _, err := io.WriteString(w, s); return err }); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	if string(got) != "before\none\ntwo\n" {
		t.Fatalf("summary = %q", got)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", filepath.Join(t.TempDir(), "no", "such", "dir"))
	if err := Append(func(io.Writer) error { return nil }); err == nil {
		t.Fatal("an unwritable summary path gave no error")
	}
}
