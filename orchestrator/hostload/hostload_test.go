package hostload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fakeProc(t *testing.T, loadavg, stat string, comms ...string) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "loadavg"), []byte(loadavg), 0o644)
	os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644)
	for i, c := range comms {
		p := filepath.Join(dir, string(rune('1'+i))+"00")
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, "comm"), []byte(c+"\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "self"), 0o755) // not a pid: skipped
	return dir
}

func TestReadAndBetween(t *testing.T) {
	start, err := Read(fakeProc(t, "3.50 2.00 1.00 3/200 999\n", "cpu  100 0 100 700 0 0 0 100 0 0\ncpu0 1 2 3\n", "qemu-system-x86", "bash", "qemu-system-aarch64"))
	if err != nil {
		t.Fatal(err)
	}
	if start.Load1 != 3.5 || start.CPUTotal != 1000 || start.CPUSteal != 100 || !start.StealKnown || start.QEMU != 2 {
		t.Fatalf("start %+v", start)
	}
	end, err := Read(fakeProc(t, "1.25 2.00 1.00 3/200 999\n", "cpu  300 0 200 1200 0 0 0 300 0 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := Between(start, end, 2, 2)
	if h.Load1Start != 3.5 || h.Load1End != 1.25 || h.OtherQEMU != 2 || h.StealPct == nil || *h.StealPct != 20 {
		t.Fatalf("between %+v", h)
	}
	loaded, why := h.Loaded()
	if !loaded || why != "load 3.5 on 2 cores, steal 20%, 2 other qemu-system" {
		t.Fatalf("loaded %v %q", loaded, why)
	}
}

// An old kernel's /proc/stat without a steal column: steal unknown, never
// a division by zero; a counter that went backwards is no steal either.
func TestNoStealColumn(t *testing.T) {
	s, err := Read(fakeProc(t, "0.5 0 0", "cpu  1 2 3 4\n"))
	if err != nil || s.StealKnown || s.CPUTotal != 10 {
		t.Fatalf("%+v %v", s, err)
	}
	if h := Between(s, s, 4, 2); h.StealPct != nil {
		t.Fatalf("steal from nothing: %v", *h.StealPct)
	}
	if loaded, _ := Between(s, s, 4, 2).Loaded(); loaded {
		t.Fatal("load 0.5 on 4 cores called loaded")
	}
}

// Hostile or broken files are named, bounded, and leave zeros.
func TestBadProc(t *testing.T) {
	for _, c := range []struct{ loadavg, stat, want string }{
		{"", "cpu 1 2 3 4", "loadavg: empty"},
		{"NaN 1 1", "cpu 1 2 3 4", "is not a load average"},
		{"-1 1 1", "cpu 1 2 3 4", "is not a load average"},
		{"1 1 1", "intr 5 6 7 8", "not the aggregate cpu line"},
		{"1 1 1", "cpu 1 2 x 4", "is not a tick count"},
		{"1 1 1", "cpu 1 2 3 99999999999999999999999", "is not a tick count"},
		{strings.Repeat("9", maxRead*2), "cpu 1 2 3 4", "is not a load average"},
	} {
		_, err := Read(fakeProc(t, c.loadavg, c.stat))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("loadavg %.20q stat %q: %v, want %q", c.loadavg, c.stat, err, c.want)
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing /proc read without error")
	}
}

// The real /proc of the machine the test runs on parses (Linux only).
func TestRealProc(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("no /proc/loadavg")
	}
	s, err := Read("/proc")
	if err != nil {
		t.Fatal(err)
	}
	if s.CPUTotal == 0 {
		t.Fatalf("no cpu ticks: %+v", s)
	}
}

func FuzzParseCPU(f *testing.F) {
	f.Add("cpu  1 2 3 4 5 6 7 8 9 10")
	f.Add("cpu 18446744073709551615 18446744073709551615 1 1 1 1 1 1")
	f.Fuzz(func(t *testing.T, line string) {
		var s Sample
		s.parseCPU(line) // never panics; overflow wraps, it is bounded by the fields
	})
}
