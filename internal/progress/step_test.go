package progress

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestStepsShareALine: on a terminal the steps of one phase rewrite one
// line (the cursor moves up over the last), with the time the phase
// should end; another message or another phase starts a line of its own.
func TestStepsShareALine(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	l := &liveLine{w: &buf, now: func() time.Time { return now }, width: func() int { return 0 }}
	r := Reporter(l.report)
	r("%s", Step{Phase: "cells", Text: "[1/4] stock rep 1: booting"})
	r("%s", Step{Phase: "cells", Text: "[1/4] stock rep 1: ok (1 of 4 cells done, ~3m left)", Left: 3 * time.Minute})
	r("%s", Warning("primary metric: b instead of a"))
	r("%s", Step{Phase: "cells", Text: "[2/4] v2 rep 1: booting"})
	r("%s", Step{Phase: "kernel stock", Text: "kernel stock: make"})
	up := "\x1b[1A\r\x1b[2K"
	want := "10:00:00 [1/4] stock rep 1: booting\n" +
		up + "10:00:00 [1/4] stock rep 1: ok (1 of 4 cells done, ~3m left) · ETA 10:03\n" +
		"10:00:00 warning: primary metric: b instead of a\n" +
		"10:00:00 [2/4] v2 rep 1: booting\n" +
		"10:00:00 kernel stock: make\n"
	if buf.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", buf.String(), want)
	}
	// A step longer than the terminal is cut (a wrapped line would leave
	// rows behind when the next step moves up over it).
	buf.Reset()
	l.width = func() int { return 20 }
	r("%s", Step{Phase: "p", Text: strings.Repeat("é", 40)})
	if got := strings.TrimSuffix(buf.String(), "\n"); len([]rune(got)) != 19 || !strings.HasSuffix(got, "…") {
		t.Fatalf("a long step on 20 columns: %q", got)
	}
	// Where lines are logged, a step is its text.
	buf.Reset()
	To(&buf, false, false)("%s", Step{Phase: "cells", Text: "[1/4] stock rep 1: booting", Left: time.Minute})
	if !strings.Contains(buf.String(), `msg="[1/4] stock rep 1: booting"`) || strings.Contains(buf.String(), "ETA") {
		t.Fatalf("a step in a log: %q", buf.String())
	}
}

// openPTY opens a pseudo-terminal: a fake terminal for For to find.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the terminal: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestForATerminal: For finds a terminal (a pseudo-terminal here) and
// prints updating lines on it; --log-format text or json gives slog
// lines even there; a file that is not a terminal gets slog lines.
func TestForATerminal(t *testing.T) {
	master, tty := openPTY(t)
	read := func() string {
		b := make([]byte, 4096)
		master.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _ := master.Read(b)
		return string(b[:n])
	}
	r := For(tty, false, "auto")
	r("%s", Step{Phase: "cells", Text: "[1/2] a"})
	first := read()
	r("%s", Step{Phase: "cells", Text: "[2/2] b"})
	if got := read(); !strings.Contains(first, "[1/2] a") || !strings.Contains(got, "\x1b[1A") || !strings.Contains(got, "[2/2] b") {
		t.Fatalf("on a terminal: %q then %q, want the second step over the first", first, got)
	}
	For(tty, false, "text")("%s", Step{Phase: "cells", Text: "[1/2] a"})
	if got := read(); !strings.Contains(got, "level=INFO") {
		t.Fatalf("--log-format text on a terminal: %q", got)
	}
	For(tty, false, "json")("x %d", 1)
	if got := read(); !strings.Contains(got, `"level":"INFO"`) || !strings.Contains(got, `"msg":"x 1"`) {
		t.Fatalf("--log-format json on a terminal: %q", got)
	}
	f, err := os.Create(t.TempDir() + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	For(f, false, "auto")("%s", Step{Phase: "cells", Text: "[1/2] a"})
	if b, _ := os.ReadFile(f.Name()); !strings.Contains(string(b), `level=INFO msg="[1/2] a"`) {
		t.Fatalf("a log file: %q", b)
	}
}

// A step's Head labels it on a terminal only; a Background step is
// logged but not drawn (it would push the foreground's line away).
func TestStepHeadAndBackground(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	l := &liveLine{w: &buf, now: func() time.Time { return now }, width: func() int { return 0 }}
	r := Reporter(l.report)
	r("%s", Step{Phase: "bisect step 1", Head: "bisect step 1 of ~4, c4", Text: "[1/4] step rep 1: booting"})
	r("%s", Step{Phase: "kernel good", Text: "kernel good: 10%", Background: true})
	r("%s", Step{Phase: "bisect step 1", Head: "bisect step 1 of ~4, c4", Text: "[2/4] bad rep 1: booting"})
	want := "10:00:00 bisect step 1 of ~4, c4 · [1/4] step rep 1: booting\n" +
		"\x1b[1A\r\x1b[2K10:00:00 bisect step 1 of ~4, c4 · [2/4] bad rep 1: booting\n"
	if buf.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", buf.String(), want)
	}
	buf.Reset()
	log := To(&buf, false, false)
	log("%s", Step{Phase: "kernel good", Head: "bisect step 1 of ~4, c4", Text: "kernel good: 10%", Background: true})
	if !strings.Contains(buf.String(), `msg="kernel good: 10%"`) || strings.Contains(buf.String(), "bisect step") {
		t.Fatalf("logged: %q", buf.String())
	}
}

func TestRemaining(t *testing.T) {
	for _, tc := range []struct {
		elapsed time.Duration
		done, n int
		want    time.Duration
	}{{30 * time.Second, 3, 10, 70 * time.Second}, {time.Minute, 0, 10, 0}, {time.Minute, 10, 10, 0}} {
		if got := Remaining(tc.elapsed, tc.done, tc.n); got != tc.want {
			t.Errorf("Remaining(%s, %d, %d) = %s, want %s", tc.elapsed, tc.done, tc.n, got, tc.want)
		}
	}
}
