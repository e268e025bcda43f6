// Package procgroup runs a command in its own process group so that
// cancelling it (Ctrl-C, a timeout) kills everything it started: make's
// compilers, the tar of `git archive | tar`, not just the direct child,
// which would leave the rest running and holding the output pipe.
package procgroup

import (
	"os/exec"
	"syscall"
	"time"
)

// Set makes cmd (not yet started, built with exec.CommandContext) start
// in a new process group, die with kregress (Pdeathsig), and on the
// context's cancel kill its whole group. WaitDelay bounds the wait for
// output pipes a stray grandchild might still hold.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
}

// SetGraceful is Set for a command that must be told before it is
// killed: on cancel its group gets SIGTERM, and SIGKILL only if anything
// of it is still alive grace later. make needs this: on SIGTERM it
// deletes the target it was writing ("Deleting file 'x.o'"), while a
// SIGKILL can leave a truncated object newer than its source, which the
// next incremental build in the same build directory takes as up to
// date.
func SetGraceful(cmd *exec.Cmd, grace time.Duration) {
	Set(cmd)
	cmd.Cancel = func() error {
		pgid := cmd.Process.Pid
		err := syscall.Kill(-pgid, syscall.SIGTERM)
		go func() {
			time.Sleep(grace)
			// ESRCH once the group is gone: nothing left to kill.
			syscall.Kill(-pgid, syscall.SIGKILL)
		}()
		return err
	}
	cmd.WaitDelay = grace + 5*time.Second
}
