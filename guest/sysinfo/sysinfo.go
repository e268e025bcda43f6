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
	g.CPUsOnline, _ = CountCPUList(at("sys/devices/system/cpu/online"))
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

// CountCPUList counts the CPUs in a kernel cpu list such as "0-3,8,10-11".
func CountCPUList(list string) (int, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return 0, fmt.Errorf("empty cpu list")
	}
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, fmt.Errorf("cpu list %q: %w", list, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return 0, fmt.Errorf("cpu list %q: %w", list, err)
			}
		}
		if b < a {
			return 0, fmt.Errorf("cpu list %q: range %s is backwards", list, part)
		}
		n += b - a + 1
	}
	return n, nil
}
