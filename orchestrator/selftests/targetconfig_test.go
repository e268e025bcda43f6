package selftests

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/internal/testfile"
)

// configTree is a kernel tree whose kselftest Makefile lists targets:
// alpha has a config and a config.x86_64, beta none, gamma a config.arm64
// only (another architecture's: not read), link a config that is a
// symbolic link, linkdir a directory that is one (to a config outside
// the tree), fifo a config that is a named pipe, big a config over the
// limit the test passes.
func configTree(t *testing.T) string {
	t.Helper()
	tree := t.TempDir()
	ks := filepath.Join(tree, KselftestDir)
	write := func(rel, text string) { testfile.Write(t, filepath.Join(ks, rel), text) }
	write("Makefile", "TARGETS += alpha\nTARGETS += beta\nTARGETS += gamma\nTARGETS += link\nTARGETS += linkdir\nTARGETS += fifo\nTARGETS += big\n")
	write("alpha/config", "CONFIG_POSIX_MQUEUE=y\n")
	write("alpha/config.x86_64", "CONFIG_X86_ONLY=y\n")
	write("beta/Makefile", "include ../lib.mk\n")
	write("gamma/config.arm64", "CONFIG_ARM_ONLY=y\n")
	write("big/config", strings.Repeat("CONFIG_A=y\n", 100))
	os.MkdirAll(filepath.Join(ks, "link"), 0o755)
	if err := os.Symlink("/etc/passwd", filepath.Join(ks, "link", "config")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ks, "fifo"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(ks, "fifo", "config"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	testfile.Write(t, filepath.Join(outside, "config"), "CONFIG_SECRET=y\n")
	if err := os.Symlink(outside, filepath.Join(ks, "linkdir")); err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestTargetConfigsReadsTheNamedTargetsFragments(t *testing.T) {
	tree := configTree(t)
	got, err := TargetConfigs(context.Background(), tree, []string{"beta", "alpha", "gamma", "alpha"}, 4096)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, c := range got {
		files = append(files, c.Target+"="+c.File+":"+string(c.Data))
	}
	want := []string{
		"alpha=tools/testing/selftests/alpha/config:CONFIG_POSIX_MQUEUE=y\n",
		"alpha=tools/testing/selftests/alpha/config.x86_64:CONFIG_X86_ONLY=y\n",
	}
	if strings.Join(files, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q (beta has none, gamma only another architecture's, alpha once)", files, want)
	}
	if got, err := TargetConfigs(context.Background(), tree, []string{"beta"}, 4096); err != nil || len(got) != 0 {
		t.Errorf("a target without a config: %v, %v; want none", got, err)
	}
}

// Outside input: a link is refused naming the target and the file, so
// is a file over the limit (read no further), an unknown target is refused with the tree's
// list.
func TestTargetConfigsRefusesHostileFiles(t *testing.T) {
	tree := configTree(t)
	_, err := TargetConfigs(context.Background(), tree, []string{"alpha", "link"}, 4096)
	if err == nil || !strings.Contains(err.Error(), "kselftest target link") || !strings.Contains(err.Error(), "tools/testing/selftests/link/config") || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a symlinked config: %v", err)
	}
	// A named pipe with no writer: refused at once, not read forever.
	if _, err := TargetConfigs(context.Background(), tree, []string{"fifo"}, 4096); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a named pipe as config: %v", err)
	}
	if _, err := TargetConfigs(context.Background(), tree, []string{"linkdir"}, 4096); err == nil || !strings.Contains(err.Error(), "tools/testing/selftests/linkdir is a symbolic link") {
		t.Errorf("a target directory that links outside the tree: %v", err)
	}
	if got, err := TargetConfigs(context.Background(), tree, []string{"big"}, 50); !regularfile.IsTooLarge(err) || !strings.Contains(err.Error(), "tools/testing/selftests/big/config is larger than 50 bytes") {
		t.Errorf("a config over the limit: %v, %v; want it refused naming it", got, err)
	}
	var ue *UnknownTargetsError
	if _, err := TargetConfigs(context.Background(), tree, []string{"alpha", "nosuch"}, 4096); !errors.As(err, &ue) || ue.Unknown[0] != "nosuch" {
		t.Errorf("an unknown target: %v", err)
	}
}
