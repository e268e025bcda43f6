package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/proctest"
)

// startThenCancel starts cmd, reads the pid of the grandchild it wrote to
// pidFile, then cancels cmd's context and waits for cmd. The grandchild
// is killed when the test ends, whatever happens.
func startThenCancel(t *testing.T, cmd *exec.Cmd, cancel context.CancelFunc, pidFile string) int {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := grandchild(t, pidFile)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	cancel()
	cmd.Wait()
	return pid
}

// Cancelling a shell kills the grandchild it started too.
func TestCancelKillsGrandchildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", `sleep 300 >/dev/null 2>&1 & echo $! > "$1"; wait`, "sh", pidFile)
	Set(cmd)
	pid := startThenCancel(t, cmd, cancel, pidFile)
	if !proctest.Gone(pid) {
		t.Fatalf("grandchild %d survived the cancel", pid)
	}
}

// A graceful cancel lets the command clean up on SIGTERM (make deletes
// the target it was writing) and still kills a grandchild that ignores
// SIGTERM once the grace has passed.
func TestGracefulCancelTermsThenKills(t *testing.T) {
	dir := t.TempDir()
	pidFile, cleaned := filepath.Join(dir, "pid"), filepath.Join(dir, "cleaned")
	ctx, cancel := context.WithCancel(context.Background())
	// The shell cleans up on TERM; its grandchild ignores TERM.
	cmd := exec.CommandContext(ctx, "sh", "-c", `trap 'touch "$2"; exit 1' TERM
sh -c 'trap "" TERM; sleep 300' >/dev/null 2>&1 & echo $! > "$1"
while :; do sleep 0.05; done`, "sh", pidFile, cleaned)
	SetGraceful(cmd, 300*time.Millisecond)
	pid := startThenCancel(t, cmd, cancel, pidFile)
	if _, err := os.Stat(cleaned); err != nil {
		t.Errorf("the command was not given SIGTERM to clean up: %v", err)
	}
	if !proctest.Gone(pid) {
		t.Fatalf("grandchild %d ignoring SIGTERM survived the grace", pid)
	}
}

// grandchild waits for the pid the test's shell writes to pidFile.
func grandchild(t *testing.T, pidFile string) int {
	t.Helper()
	for {
		data, _ := os.ReadFile(pidFile)
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid != 0 {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
}
