package pipeline

import (
	"bytes"
	"context"
	"os"
	"sync"
	"time"

	"github.com/kregress/kregress/results"
)

// consoleMarks are the console lines that mark a boot's phases, in order.
var consoleMarks = []struct{ phase, text string }{
	{"first console byte", ""},
	{"kernel start", "Linux version"},
	{"unpacking initramfs", "Unpacking initramfs"},
	{"/init", "Run /init"},
	{"agent listening", "ssh listening on"},
}

// agentListening is the phase after which SSH is dialed.
const agentListening = "agent listening"

// consoleWatch polls a guest's console file and records when each mark
// first appears (host time, so phases line up with the host's own).
type consoleWatch struct {
	mu        sync.Mutex
	seen      map[string]time.Time
	listening chan struct{}
}

func watchConsole(ctx context.Context, path string) *consoleWatch {
	w := &consoleWatch{seen: map[string]time.Time{}, listening: make(chan struct{})}
	if path == "" {
		close(w.listening) // no console to watch (fakes): dial at once
		return w
	}
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
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
				if m.phase == agentListening {
					close(w.listening)
				}
			}
			_, listening := w.seen[agentListening]
			w.mu.Unlock()
			if listening {
				return
			}
		}
	}()
	return w
}

func (w *consoleWatch) at(phase string) (time.Time, bool) {
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
func (c *phaseClock) fromConsole(w *consoleWatch) {
	for _, m := range consoleMarks {
		if t, ok := w.at(m.phase); ok {
			c.mark(m.phase, t)
		}
	}
}
