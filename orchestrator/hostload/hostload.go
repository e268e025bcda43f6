// Package hostload samples how busy the host is (load average, steal
// time, other QEMU guests) from /proc, so that each cell records the load
// it ran under: a selftest that fails once on a loaded host is suspect,
// not yet a regression.
package hostload

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kregress/kregress/results"
)

// Sample is one reading of the host's load.
type Sample struct {
	Load1 float64
	// CPUTotal and CPUSteal: the aggregate "cpu" line of /proc/stat, in
	// ticks; StealKnown is false when the line has no steal column.
	CPUTotal, CPUSteal uint64
	StealKnown         bool
	// QEMU: qemu-system processes running.
	QEMU int
}

// maxRead bounds what is read of a /proc file: the values wanted are on
// its first line, and a file that is not what it should be is not read
// without end.
const maxRead = 64 << 10

// maxProcs bounds the processes looked at for QEMU guests.
const maxProcs = 1 << 16

// Read samples proc (normally "/proc"). A file that cannot be read or
// parsed leaves its fields zero and is named in the error; the rest is
// still filled in.
func Read(proc string) (Sample, error) {
	var s Sample
	var errs []string
	if line, err := readFirstLine(filepath.Join(proc, "loadavg")); err != nil {
		errs = append(errs, err.Error())
	} else if f := strings.Fields(line); len(f) == 0 {
		errs = append(errs, "loadavg: empty")
	} else if v, err := strconv.ParseFloat(f[0], 64); err != nil || v < 0 || v != v {
		errs = append(errs, fmt.Sprintf("loadavg: %q is not a load average", f[0]))
	} else {
		s.Load1 = v
	}
	if line, err := readFirstLine(filepath.Join(proc, "stat")); err != nil {
		errs = append(errs, err.Error())
	} else if err := s.parseCPU(line); err != nil {
		errs = append(errs, err.Error())
	}
	n, err := countQEMU(proc)
	if err != nil {
		errs = append(errs, err.Error())
	}
	s.QEMU = n
	if len(errs) > 0 {
		return s, fmt.Errorf("host load from %s: %s", proc, strings.Join(errs, "; "))
	}
	return s, nil
}

// parseCPU reads "cpu  user nice system idle iowait irq softirq steal
// guest guest_nice" (guest time is already counted in user).
func (s *Sample) parseCPU(line string) error {
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return fmt.Errorf("stat: first line %q is not the aggregate cpu line", truncate(line))
	}
	for i, x := range f[1:min(len(f), 9)] {
		v, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return fmt.Errorf("stat: cpu field %d %q is not a tick count", i+1, truncate(x))
		}
		s.CPUTotal += v
		if i == 7 {
			s.CPUSteal, s.StealKnown = v, true
		}
	}
	return nil
}

// readFirstLine is the first line of the file at path, trimmed, read
// within maxRead bytes.
func readFirstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, maxRead))
	line, err := r.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return strings.TrimSpace(line), nil
}

// countQEMU counts processes whose command name starts with qemu-system.
func countQEMU(proc string) (int, error) {
	d, err := os.Open(proc)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(maxProcs)
	if err != nil && err != io.EOF {
		return 0, fmt.Errorf("%s: %w", proc, err)
	}
	n := 0
	for _, name := range names {
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		// A process that ended meanwhile has no comm: not counted.
		if comm, err := readFirstLine(filepath.Join(proc, name, "comm")); err == nil && strings.HasPrefix(comm, "qemu-system") {
			n++
		}
	}
	return n, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Between is the load a cell ran under, from a sample taken when it
// started (before its own guest) and one when it ended, on a host of
// cores CPUs, for a guest of guestCPUs vCPUs.
func Between(start, end Sample, cores, guestCPUs int) *results.HostLoad {
	h := &results.HostLoad{Load1Start: start.Load1, Load1End: end.Load1, Cores: cores, OtherQEMU: start.QEMU, GuestCPUs: guestCPUs}
	if start.StealKnown && end.StealKnown && end.CPUTotal > start.CPUTotal && end.CPUSteal >= start.CPUSteal {
		pct := float64(end.CPUSteal-start.CPUSteal) / float64(end.CPUTotal-start.CPUTotal) * 100
		h.StealPct = &pct
	}
	return h
}
