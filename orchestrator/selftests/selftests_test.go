package selftests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTree has the selftests directory with two test sources and no
// Makefile: only the checks that run before make are exercised here (the
// real build is in the e2e tests).
func fakeTree(t *testing.T) string {
	tree := t.TempDir()
	dir := filepath.Join(tree, SuiteDir)
	os.MkdirAll(dir, 0o755)
	for _, n := range []string{"test_core.c", "test_pids.c", "cgroup_util.c"} {
		os.WriteFile(filepath.Join(dir, n), []byte("int main(){}\n"), 0o644)
	}
	return tree
}

func TestAvailableAndUnknownName(t *testing.T) {
	tree := fakeTree(t)
	got, err := Available(tree)
	if err != nil || strings.Join(got, ",") != "test_core,test_pids" {
		t.Fatalf("Available = %v, %v", got, err)
	}
	b := &Builder{CacheDir: t.TempDir()}
	for _, bad := range []string{"test_nope", "../test_core", "cgroup_util"} {
		_, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_core", bad})
		if err == nil || !strings.Contains(err.Error(), bad+" is not a cgroup selftest") || !strings.Contains(err.Error(), "test_core, test_pids") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// A binary already in the cache is not rebuilt (the fake tree has no
// Makefile, so any make would fail).
func TestCachedBinaryIsReused(t *testing.T) {
	tree := fakeTree(t)
	b := &Builder{CacheDir: t.TempDir()}
	if _, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_core"}); err == nil || !strings.Contains(err.Error(), "test_core did not build") {
		t.Fatalf("first build should fail naming the binary: %v", err)
	}
	// Put a binary where the cache keeps it, as a finished build would.
	entries, _ := os.ReadDir(filepath.Join(b.CacheDir, "selftests"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v", entries)
	}
	keyDir := filepath.Join(b.CacheDir, "selftests", entries[0].Name())
	os.WriteFile(filepath.Join(keyDir, "test_core"), []byte("binary"), 0o755)
	s, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_core"})
	if err != nil || len(s.Binaries) != 1 || s.Binaries[0].Path != filepath.Join(keyDir, "test_core") {
		t.Fatalf("cached: %+v %v", s, err)
	}
}

// mm programs are named mm/<program>; one kregress does not build is
// refused with the list of those it does, and a known one is compiled
// from its sources (here missing, so the error names the program).
func TestMMPrograms(t *testing.T) {
	tree := fakeTree(t)
	b := &Builder{CacheDir: t.TempDir()}
	_, err := b.Build(context.Background(), tree, "src", "gcc", []string{"mm/ksm_tests"})
	if err == nil || !strings.Contains(err.Error(), "mm/ksm_tests is not a cgroup selftest") || !strings.Contains(err.Error(), "mm/compaction_test, mm/madv_populate") {
		t.Errorf("unknown mm program: %v", err)
	}
	_, err = b.Build(context.Background(), tree, "src", "gcc", []string{"mm/compaction_test"})
	if err == nil || !strings.Contains(err.Error(), "mm/compaction_test did not build") || !strings.Contains(err.Error(), "compaction_test.c") {
		t.Errorf("mm program without sources: %v", err)
	}
}
