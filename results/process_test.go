package results

import (
	"os"
	"os/exec"
	"testing"
)

// No pid <= 0 is alive (kill(0) or kill(-1) would probe a group); this
// process is; a child that exited and was reaped is gone.
func TestProcessAlive(t *testing.T) {
	for _, pid := range []int{0, -1, DetachedPID} {
		if ProcessAlive(pid) {
			t.Errorf("pid %d alive", pid)
		}
	}
	if !ProcessAlive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Skip(err)
	}
	if ProcessAlive(child.Process.Pid) {
		t.Errorf("pid %d of a reaped child alive", child.Process.Pid)
	}
}
