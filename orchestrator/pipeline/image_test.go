package pipeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
)

// gitTree commits files (path -> content) into a new git work tree.
func gitTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "tree"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// The gate keeps the tests the base tree has and says which it drops;
// when it keeps none (and there are no targets) it builds nothing, asks
// for no compiler, and the stored configuration lists no binaries.
func TestSelftestGateDropsTestsTheTreeLacks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tree := gitTree(t, map[string]string{
		"Makefile": "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n",
		"tools/testing/selftests/cgroup/test_core.c": "int main(void) { return 0; }\n",
	})
	cfg := &config.Config{CacheDir: t.TempDir()}
	cfg.Kernel.Source, cfg.Kernel.GitTree = "git", tree
	cfg.Selftests.Repetitions = 1
	cfg.Selftests.Binaries = []string{"test_zswap", "test_pids"}
	var said []string
	report := func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }

	files, cmd, tests, err := selftestGate(context.Background(), cfg, &variants.Selection{}, report)
	if err != nil {
		t.Fatal(err)
	}
	if files != nil || cmd != "" || tests != nil || len(cfg.Selftests.Binaries) != 0 {
		t.Errorf("gate with no test in the tree: files %v, command %q, tests %v, binaries %v", files, cmd, tests, cfg.Selftests.Binaries)
	}
	want := fmt.Sprintf("selftests: test_zswap, test_pids not in git tree %s at HEAD (tools/testing/selftests/cgroup has: test_core); the gate runs none of them", tree)
	if len(said) == 0 || said[len(said)-1] != want {
		t.Errorf("said %q\nwant last %q", said, want)
	}

	// A chosen list is not filtered: nothing to build means nothing unpacked.
	cfg.Selftests.Binaries = nil
	cfg.Kernel.GitTree = filepath.Join(t.TempDir(), "absent")
	if _, _, _, err := selftestGate(context.Background(), cfg, &variants.Selection{SelftestsChosen: true}, report); err != nil {
		t.Errorf("chosen empty list: %v (the tree should not be read)", err)
	}
}
