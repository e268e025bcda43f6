package sysinfo

import (
	"path/filepath"
	"slices"
	"strconv"
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

// The online CPU list in the kernel's format: ascending parts, each once;
// anything else, and any list naming a CPU past Linux's largest NR_CPUS,
// is refused before it allocates.
func TestParseCPUList(t *testing.T) {
	for list, want := range map[string][]int{
		"0":           {0},
		"0-3,5,7-8":   {0, 1, 2, 3, 5, 7, 8},
		"2-2":         {2},
		" 0-1\n":      {0, 1},
		"8191":        {8191},
		"0,8190-8191": {0, 8190, 8191},
	} {
		got, err := ParseCPUList(list)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v %v, want %v", list, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "3-1", "0-", "-2", "0,,1", "1-x", "+1", "0x1", "1 -2", "0-3,2", "3,1", "1,1",
		"8192", "0-8192", "0-4294967295", "0-99999999999999999999", "99999999999999999999",
		strings.Repeat("0,", 30000) + "1"} {
		if got, err := ParseCPUList(bad); err == nil {
			t.Errorf("%.40q parsed as %d CPUs", bad, len(got))
		} else if len(err.Error()) > 300 {
			t.Errorf("%.40q: error of %d bytes quotes the whole list", bad, len(err.Error()))
		}
	}
	// The largest list the kernel can write is taken.
	var parts []string
	for c := 0; c < MaxCPUs; c += 2 {
		parts = append(parts, strconv.Itoa(c))
	}
	if got, err := ParseCPUList(strings.Join(parts, ",")); err != nil || len(got) != MaxCPUs/2 {
		t.Errorf("every other CPU of %d: %d CPUs, %v", MaxCPUs, len(got), err)
	}
}

func TestFormatCPUList(t *testing.T) {
	for want, cpus := range map[string][]int{"0-3,5,7-8": {0, 1, 2, 3, 5, 7, 8}, "0": {0}, "1,3": {1, 3}, "": nil} {
		if got := FormatCPUList(cpus); got != want {
			t.Errorf("%v written %q, want %q", cpus, got, want)
		}
	}
}

// OnlineCPUsFrom reads the kernel's file and names it in its errors.
func TestOnlineCPUsFrom(t *testing.T) {
	root := t.TempDir()
	testfile.Write(t, filepath.Join(root, OnlineFile), "0-3,5,7-8\n")
	if got, err := OnlineCPUsFrom(root); err != nil || !slices.Equal(got, []int{0, 1, 2, 3, 5, 7, 8}) {
		t.Fatalf("online %v %v", got, err)
	}
	testfile.Write(t, filepath.Join(root, OnlineFile), "0-3,2\n")
	if _, err := OnlineCPUsFrom(root); err == nil || !strings.Contains(err.Error(), OnlineFile) {
		t.Fatalf("overlapping list: %v, want an error naming the file", err)
	}
	if _, err := OnlineCPUsFrom(t.TempDir()); err == nil {
		t.Fatal("missing file accepted")
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
