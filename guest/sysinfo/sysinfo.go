// Package sysinfo reads what the guest kernel says about itself, for the
// provenance of every run: release, cmdline, online and possible CPUs.
package sysinfo

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
)

// Read collects the guest facts; a missing file leaves its field empty.
func Read() agentproto.Guest { return ReadFrom("/") }

// maxFileBytes bounds what is read of any one file: these are a few lines
// each, and the document carries them.
const maxFileBytes = 64 << 10

// ReadFrom is Read with /proc and /sys under root (tests give a
// directory of fixtures).
func ReadFrom(root string) agentproto.Guest {
	at := func(p string) string { return readTrim(filepath.Join(root, p)) }
	g := agentproto.Guest{
		KernelRelease: at("proc/sys/kernel/osrelease"),
		KernelVersion: at("proc/sys/kernel/version"),
		Cmdline:       at("proc/cmdline"),
	}
	g.CPUsOnline, _ = CountCPUList(at(OnlineFile))
	g.CPUsPossible, _ = CountCPUList(at("sys/devices/system/cpu/possible"))
	if f, err := os.Open(filepath.Join(root, "proc/meminfo")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(io.LimitReader(f, maxFileBytes))
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 2 && fields[0] == "MemTotal:" {
				g.MemTotalKB, _ = strconv.ParseInt(fields[1], 10, 64)
			}
		}
	}
	return g
}

func readTrim(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// MaxCPUs bounds the CPU numbers a cpu list may name: Linux's largest
// NR_CPUS. A list naming more is not the kernel's, and parsing it must
// not allocate without bound.
const MaxCPUs = 8192

// CountCPUList counts the CPUs in a kernel cpu list such as "0-3,8,10-11".
func CountCPUList(list string) (int, error) {
	cpus, err := ParseCPUList(list)
	return len(cpus), err
}

// ParseCPUList is the CPUs of a kernel cpu list such as "0-3,8,10-11"
// (the format of /sys/devices/system/cpu/online), ascending. The kernel
// writes its parts ascending and apart; a list that does not (a
// backwards range, a part at or below the one before it), names a CPU
// of MaxCPUs or more, or is longer than a list of MaxCPUs CPUs can be,
// is refused.
func ParseCPUList(list string) ([]int, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return nil, fmt.Errorf("empty cpu list")
	}
	// "0,2,4,...": at most 5 bytes a CPU below MaxCPUs.
	if len(list) > 5*MaxCPUs {
		return nil, fmt.Errorf("cpu list of %d bytes: longer than any list of %d CPUs", len(list), MaxCPUs)
	}
	shown := list
	if len(shown) > 64 {
		shown = shown[:64] + "..."
	}
	var cpus []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpuNumber(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", shown, err)
		}
		b := a
		if isRange {
			if b, err = cpuNumber(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", shown, err)
			}
		}
		if b < a {
			return nil, fmt.Errorf("cpu list %q: range %s is backwards", shown, part)
		}
		if n := len(cpus); n > 0 && a <= cpus[n-1] {
			return nil, fmt.Errorf("cpu list %q: %s does not follow CPU %d (the kernel lists CPUs ascending, each once)", shown, part, cpus[n-1])
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// FormatCPUList writes ascending CPUs as the kernel writes a cpu list
// ("0-3,5,7-8"), which cpuset.cpus reads back.
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// cpuNumber reads one CPU number of a cpu list: decimal digits only,
// below MaxCPUs.
func cpuNumber(s string) (int, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	if len(s) > 5 {
		return 0, fmt.Errorf("CPU %.8s...: not below %d", s, MaxCPUs)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a CPU number: %w", s, err)
	}
	if n >= MaxCPUs {
		return 0, fmt.Errorf("CPU %d: not below %d", n, MaxCPUs)
	}
	return n, nil
}

// OnlineFile is where the kernel lists its online CPUs, below the root
// of ReadFrom.
const OnlineFile = "sys/devices/system/cpu/online"

// OnlineCPUs is the guest's online CPUs, ascending, from
// /sys/devices/system/cpu/online: the CPUs a workload spreads its actors
// over. Unlike runtime.NumCPU, it does not depend on the calling
// process's affinity mask.
func OnlineCPUs() ([]int, error) { return OnlineCPUsFrom("/") }

// OnlineCPUsFrom is OnlineCPUs with /sys under root.
func OnlineCPUsFrom(root string) ([]int, error) {
	path := filepath.Join(root, OnlineFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("online CPUs: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes))
	if err != nil {
		return nil, fmt.Errorf("online CPUs: read %s: %w", path, err)
	}
	cpus, err := ParseCPUList(string(b))
	if err != nil {
		return nil, fmt.Errorf("online CPUs in %s: %w", path, err)
	}
	return cpus, nil
}
