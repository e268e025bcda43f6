package results

import (
	"os"
	"os/exec"
	"testing"
)

// This process is alive; no pid <= 0 is (kill(0) or kill(-1) would
// signal a group); a process that exited and was reaped is gone.
func TestProcessAlive(t *testing.T) {
	if !ProcessAlive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	for _, pid := range []int{0, -1, DetachedPID} {
		if ProcessAlive(pid) {
			t.Errorf("pid %d alive", pid)
		}
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	if ProcessAlive(cmd.Process.Pid) {
		t.Errorf("pid %d of a reaped process alive", cmd.Process.Pid)
	}
}
