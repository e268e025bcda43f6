package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/kregress/kregress/orchestrator/remote"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/results"
)

// WaitAgent dials the guest's SSH server once the guest's init has said on
// the console that the port listens (or the guest died, or ctx ended). Dialing
// earlier reaches QEMU's user network before the guest does, and slirp's
// SYN retransmissions (1 s, 2 s, ...) then delay the connection by
// seconds after the guest is ready. console is m's watch (WatchConsole).
//
// The announcement is a console line, and a console can lose a line: a
// kernel message printed while the line drains through the UART lands in
// its middle, and a kernel booted with "quiet" may not print it at all.
// So the host also dials when announceGrace has passed since the kernel
// ran /init, or announceGraceFromStart since the watch began, whichever
// comes first: a lost line costs seconds, not the boot timeout.
func WaitAgent(ctx context.Context, d remote.Dialer, m vm.Machine, console *ConsoleWatch) (remote.Guest, error) {
	return waitAgent(ctx, d, m, console, announceGrace, announceGraceFromStart)
}

// The grace periods of WaitAgent. The first is many times the time init
// takes from /init to its announcement on a loaded host; the second covers
// a kernel that prints neither line.
const (
	announceGrace          = 10 * time.Second
	announceGraceFromStart = 45 * time.Second
)

func waitAgent(ctx context.Context, d remote.Dialer, m vm.Machine, console *ConsoleWatch, afterInit, afterStart time.Duration) (remote.Guest, error) {
	start := time.Now()
	fromStart := time.NewTimer(afterStart)
	defer fromStart.Stop()
	initRun := console.initRun
	var graceOver <-chan time.Time
wait:
	for {
		select {
		case <-console.listening:
			break wait
		case <-m.Done():
			break wait
		case <-initRun:
			initRun = nil
			graceOver = time.After(afterInit)
		case <-graceOver:
			break wait
		case <-fromStart.C:
			break wait
		case <-ctx.Done():
			// Dialing now would fail at once and blame the dial.
			return nil, fmt.Errorf("the guest did not announce its SSH server within %s (the last boot phase its console showed: %s)",
				time.Since(start).Round(time.Second), console.lastPhase())
		}
	}
	return remote.WaitReady(ctx, d, m.SSHAddr(), m.Done())
}

// WatchConsole starts watching a guest's console for its boot phases.
func WatchConsole(ctx context.Context, m vm.Machine) *ConsoleWatch {
	return watchConsole(ctx, m.ConsolePath())
}

// At says when a phase's console mark was first seen.
func (w *ConsoleWatch) At(phase string) (time.Time, bool) { return w.at(phase) }

// ConsolePhases are the names of the phases a ConsoleWatch records.
func ConsolePhases() []string {
	var out []string
	for _, m := range consoleMarks {
		out = append(out, m.phase)
	}
	return out
}

// consoleMarks are the console lines that mark a boot's phases, in order.
var consoleMarks = []struct{ phase, text string }{
	{"first console byte", ""},
	{"kernel start", "Linux version"},
	{"unpacking initramfs", "Unpacking initramfs"},
	{initRunPhase, "Run /init"},
	{sshListening, "ssh listening on"}, // printed by init once the port is open and the network up
}

// sshListening is the phase after which SSH is dialed; initRunPhase the
// one from which WaitAgent's grace period runs.
const (
	sshListening = "ssh listening"
	initRunPhase = "/init"
)

// ConsoleWatch polls a guest's console file and records when each mark
// first appears (host time, so phases line up with the host's own).
type ConsoleWatch struct {
	mu        sync.Mutex
	seen      map[string]time.Time
	listening chan struct{} // closed when sshListening is seen
	initRun   chan struct{} // closed when initRunPhase is seen
}

// watchOverlap is what the console watch keeps of the text it searched,
// for a mark that straddles two reads; longer than any mark.
const watchOverlap = 4 << 10

func watchConsole(ctx context.Context, path string) *ConsoleWatch {
	w := &ConsoleWatch{seen: map[string]time.Time{}, listening: make(chan struct{}), initRun: make(chan struct{})}
	if path == "" {
		close(w.listening) // no console to watch (fakes): dial at once
		close(w.initRun)
		return w
	}
	go func() {
		// Every millisecond between the port listening and the host
		// dialing is on every boot's path; a stat every 5 ms is cheap.
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var off int64
		var buf []byte
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			f, err := os.Open(path)
			if err != nil {
				continue
			}
			st, _ := f.Stat()
			if st != nil && st.Size() < off {
				// vm cut the console's middle out (a guest flooding
				// it): read what is there again; marks seen stay seen.
				off = 0
			}
			if st != nil && st.Size() > off {
				chunk := make([]byte, st.Size()-off)
				n, _ := f.ReadAt(chunk, off)
				off += int64(n)
				buf = append(buf, chunk[:n]...)
			}
			f.Close()
			now := time.Now()
			// Each mark on its own: a kernel may not print every one.
			w.mu.Lock()
			for _, m := range consoleMarks {
				if _, done := w.seen[m.phase]; done || len(buf) == 0 || (m.text != "" && !bytes.Contains(buf, []byte(m.text))) {
					continue
				}
				w.seen[m.phase] = now
				switch m.phase {
				case sshListening:
					close(w.listening)
				case initRunPhase:
					close(w.initRun)
				}
			}
			_, listening := w.seen[sshListening]
			w.mu.Unlock()
			// Marks are short: what was searched is dropped but for an
			// overlap, so a guest printing before it listens cannot
			// grow this buffer without bound.
			if len(buf) > watchOverlap {
				buf = append(buf[:0:0], buf[len(buf)-watchOverlap:]...)
			}
			if listening {
				return
			}
		}
	}()
	return w
}

// lastPhase names the latest boot phase seen on the console.
func (w *ConsoleWatch) lastPhase() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	last := "none (no console output)"
	for _, m := range consoleMarks {
		if _, ok := w.seen[m.phase]; ok {
			last = fmt.Sprintf("%q", m.phase)
		}
	}
	return last
}

func (w *ConsoleWatch) at(phase string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.seen[phase]
	return t, ok
}

// phaseClock records a cell's phases as offsets from QEMU's start.
type phaseClock struct {
	start  time.Time
	phases []results.Phase
}

func (c *phaseClock) mark(name string, at time.Time) {
	c.phases = append(c.phases, results.Phase{Name: name, Seconds: at.Sub(c.start).Seconds()})
}

func (c *phaseClock) now(name string) { c.mark(name, time.Now()) }

// fromConsole adds the console's marks seen so far, in their order.
func (c *phaseClock) fromConsole(w *ConsoleWatch) {
	for _, m := range consoleMarks {
		if t, ok := w.at(m.phase); ok {
			c.mark(m.phase, t)
		}
	}
}
