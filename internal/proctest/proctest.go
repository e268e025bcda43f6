// Package proctest tells a test whether a process it started (or that one
// of its processes started) still runs: how the tests of kernel builds
// and of process groups check that a cancel left no process behind.
package proctest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Alive says whether pid runs: a zombie waiting for its reaper is dead.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// Gone says whether pid is dead within 10 s. A kill is asynchronous: it
// polls (bounded); a survivor is the defect the caller reports.
func Gone(pid int) bool {
	for i := 0; i < 500 && Alive(pid); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	return !Alive(pid)
}
