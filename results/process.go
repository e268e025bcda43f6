package results

import (
	"errors"
	"syscall"
)

// ProcessAlive reports whether a process exists on this host (signal 0
// probes without sending): how a "running" run's owner is checked on its
// own host (RunOwner.Liveness). Here, not in a store, so that a package
// that only lists runs need not link one.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
