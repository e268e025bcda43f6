package proctest

import (
	"os"
	"os/exec"
	"testing"
)

func TestAliveUntilKilledAndReaped(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("the test itself is not alive")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !Alive(pid) {
		t.Fatalf("sleep %d not alive", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !Gone(pid) {
		t.Fatalf("sleep %d alive after kill and wait", pid)
	}
}
