package sysinfo

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/testfile"
)

func TestCountCPUList(t *testing.T) {
	for list, want := range map[string]int{"0": 1, "0-3": 4, "0-3,8,10-11": 7, " 0-1\n": 2, "5": 1} {
		if n, err := CountCPUList(list); err != nil || n != want {
			t.Errorf("%q: %d %v, want %d", list, n, err, want)
		}
	}
	for _, bad := range []string{"", "x", "3-1", "0-", "-2", "0,,1", "1-x"} {
		if n, err := CountCPUList(bad); err == nil {
			t.Errorf("%q counted as %d", bad, n)
		}
	}
}

func TestReadFrom(t *testing.T) {
	root := t.TempDir()
	testfile.Write(t, filepath.Join(root, "proc/sys/kernel/osrelease"), "6.12.57\n")
	testfile.Write(t, filepath.Join(root, "proc/sys/kernel/version"), "#1 SMP PREEMPT_DYNAMIC\n")
	testfile.Write(t, filepath.Join(root, "proc/cmdline"), "console=ttyS0 panic=-1\n")
	testfile.Write(t, filepath.Join(root, "sys/devices/system/cpu/online"), "0-1\n")
	testfile.Write(t, filepath.Join(root, "sys/devices/system/cpu/possible"), "0-7\n")
	testfile.Write(t, filepath.Join(root, "proc/meminfo"), "MemFree:   1000 kB\nMemTotal:  500000 kB\n")
	want := agentproto.Guest{KernelRelease: "6.12.57", KernelVersion: "#1 SMP PREEMPT_DYNAMIC", Cmdline: "console=ttyS0 panic=-1",
		CPUsOnline: 2, CPUsPossible: 8, MemTotalKB: 500000}
	if got := ReadFrom(root); got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// Missing files leave their fields empty; a bad cpu list counts 0; an
// endless file is read only to the bound.
func TestReadFromMissingAndHostile(t *testing.T) {
	if got := ReadFrom(t.TempDir()); got != (agentproto.Guest{}) {
		t.Fatalf("empty root: %+v", got)
	}
	root := t.TempDir()
	testfile.Write(t, filepath.Join(root, "sys/devices/system/cpu/online"), "all of them")
	testfile.Write(t, filepath.Join(root, "proc/cmdline"), strings.Repeat("x", 4*maxFileBytes))
	g := ReadFrom(root)
	if g.CPUsOnline != 0 || len(g.Cmdline) != maxFileBytes {
		t.Fatalf("cpus %d, cmdline %d bytes (bound %d)", g.CPUsOnline, len(g.Cmdline), maxFileBytes)
	}
}
