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
