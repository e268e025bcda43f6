package remote

import (
	"fmt"
	"sync"
)

// The guest is hostile (or broken): a workload that floods its stdout
// would otherwise grow the host's heap as fast as it writes. Each stream
// is kept up to a cap;
// past it the session is closed and Run returns an *OutputLimitError.
//
// The caps are far above what kagent writes: its largest stdout is the
// agent document, which grows with the run's windows and their stacks;
// the selftests document keeps only output tails; dmesg is the kernel's
// log buffer; stderr carries only diagnostics (their sizes:
// docs/design-notes.md, "Figures behind choices in the code").
const (
	DefaultStdoutLimit = 16 << 20
	DefaultStderrLimit = 1 << 20
)

// OutputLimitError says a guest command wrote more than a stream's cap.
type OutputLimitError struct {
	Cmd    string
	Stream string // "stdout" or "stderr"
	Limit  int64
	// Received is how much the host had read when it closed the session:
	// the guest meant to write at least this much.
	Received int64
}

func (e *OutputLimitError) Error() string {
	return fmt.Sprintf("guest command %q wrote more than its cap of %s on %s (%s read before the session was closed)",
		e.Cmd, byteSize(e.Limit), e.Stream, byteSize(e.Received))
}

// byteSize prints n bytes for humans, exactly when small.
func byteSize(n int64) string {
	switch {
	case n >= 10<<20 || (n >= 1<<20 && n%(1<<20) == 0):
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 10<<10 || (n >= 1<<10 && n%(1<<10) == 0):
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// limitedBuffer keeps the first limit bytes written to it and counts the
// rest; the first write past the limit closes over once.
type limitedBuffer struct {
	mu       sync.Mutex
	buf      []byte
	limit    int64
	received int64
	over     chan struct{} // closed when received first exceeds limit
}

func newLimitedBuffer(limit int64) *limitedBuffer {
	return &limitedBuffer{limit: limit, over: make(chan struct{})}
}

// Write never fails: a failing writer would stop x/crypto/ssh's copy
// loop, the channel's window would fill, and the session would hang
// until the workload timeout. The excess is dropped; the caller closes
// the session when over is closed.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasOver := b.received > b.limit
	b.received += int64(len(p))
	if room := b.limit - int64(len(b.buf)); room > 0 {
		keep := p
		if int64(len(keep)) > room {
			keep = keep[:room]
		}
		b.buf = append(b.buf, keep...)
	}
	if !wasOver && b.received > b.limit {
		close(b.over)
	}
	return len(p), nil
}

// Bytes returns what was kept (at most limit bytes).
func (b *limitedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf
}

// Received is how many bytes were written, kept or not.
func (b *limitedBuffer) Received() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.received
}
