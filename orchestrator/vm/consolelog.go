package vm

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"
)

// ConsoleHeadBytes and ConsoleTailBytes bound the console file on disk. A
// guest can print forever (a driver stuck in a printk loop, a hostile
// patch) for as long as the cell's timeouts allow, at the speed of the
// emulated UART: unbounded, that fills the results disk. The start of the
// console (the boot, the first report) and its end (the last report, the
// panic: nothing runs after it) are what anyone reads, so the file keeps
// its first ConsoleHeadBytes, one line saying how much was dropped, and
// between ConsoleTailBytes and 2*ConsoleTailBytes of its end. At most
// ConsoleHeadBytes + 2*ConsoleTailBytes + a line: 12 MiB, under the
// kernel-report search's 32 MiB, so that search sees the whole file.
const (
	ConsoleHeadBytes = 4 << 20
	ConsoleTailBytes = 4 << 20
)

// consoleLog is the console file's writer: QEMU writes the serial port
// into a pipe, and this copies it to the file within the bounds above.
// Readers (the console watch, Panicked, the tail) read the file while it
// is written; every state they can see ends with console text that was
// really the console's end, because the tail is moved down before the
// file is cut.
type consoleLog struct {
	f        *os.File
	head     int64 // bytes kept from the start
	tail     int64 // bytes kept from the end after a cut
	seen     int64 // bytes the guest wrote
	size     int64 // the file's size
	noteAt   int64 // where the truncation note starts; -1 before the first byte over the head
	tailAt   int64 // where the kept tail starts (after the note)
	dropped  int64 // bytes cut out between head and tail
	moveBuf  []byte
	writeErr error
}

func newConsoleLog(path string, head, tail int64) (*consoleLog, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("vm: console log: %w", err)
	}
	return &consoleLog{f: f, head: head, tail: tail, noteAt: -1}, nil
}

// truncationNote is the line between head and tail. Its width is fixed,
// so it is rewritten in place as more is dropped.
func truncationNote(dropped int64) []byte {
	return fmt.Appendf(nil, "\n[kregress: console over its cap; %20d bytes dropped here; the start and the end are kept]\n", dropped)
}

// Write implements io.Writer. It never fails towards its caller (QEMU's
// pipe must keep draining, or the guest stalls on its UART): the first
// write error is kept and returned by Close.
func (c *consoleLog) Write(p []byte) (int, error) {
	n := len(p)
	c.seen += int64(n)
	if c.writeErr != nil {
		return n, nil
	}
	if c.noteAt < 0 {
		room := c.head - c.size
		if int64(len(p)) <= room {
			c.append(p)
			return n, nil
		}
		c.append(p[:room])
		p = p[room:]
		c.noteAt = c.size
		c.append(truncationNote(0))
		c.tailAt = c.size
	}
	c.append(p)
	if c.size-c.tailAt > 2*c.tail {
		c.cut()
	}
	return n, nil
}

func (c *consoleLog) append(p []byte) {
	if c.writeErr != nil || len(p) == 0 {
		return
	}
	if _, err := c.f.WriteAt(p, c.size); err != nil {
		c.writeErr = err
		return
	}
	c.size += int64(len(p))
}

// cut moves the last c.tail bytes down to c.tailAt, from the start of a
// line where one begins in their first quarter, then shortens the file.
func (c *consoleLog) cut() {
	if c.moveBuf == nil {
		c.moveBuf = make([]byte, c.tail)
	}
	keep := c.moveBuf
	from := c.size - c.tail
	if _, err := c.f.ReadAt(keep, from); err != nil && err != io.EOF {
		c.writeErr = err
		return
	}
	if i := bytes.IndexByte(keep[:len(keep)/4], '\n'); i >= 0 {
		keep, from = keep[i+1:], from+int64(i+1)
	}
	// Write before truncating: a reader of the end sees the old end or
	// the moved one, both the console's real end.
	if _, err := c.f.WriteAt(keep, c.tailAt); err != nil {
		c.writeErr = err
		return
	}
	if err := c.f.Truncate(c.tailAt + int64(len(keep))); err != nil {
		c.writeErr = err
		return
	}
	c.dropped += from - c.tailAt
	c.size = c.tailAt + int64(len(keep))
	if _, err := c.f.WriteAt(truncationNote(c.dropped), c.noteAt); err != nil {
		c.writeErr = err
	}
}

// Close closes the file and returns the first write error.
func (c *consoleLog) Close() error {
	err := c.f.Close()
	if c.writeErr != nil {
		return fmt.Errorf("vm: console log: %w", c.writeErr)
	}
	return err
}

// consoleCopy is the pipe from a process's descriptor consoleFD to a
// bounded console file.
type consoleCopy struct {
	r, w *os.File
	log  *consoleLog
	done chan struct{} // closed when the copy has ended and the file is closed
}

// newConsoleCopy creates path and the pipe; pass w in ExtraFiles (first,
// so that it is consoleFD), then call started or abort.
func newConsoleCopy(path string, head, tail int64) (*consoleCopy, error) {
	log, err := newConsoleLog(path, head, tail)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("vm: console pipe: %w", err)
	}
	return &consoleCopy{r: r, w: w, log: log, done: make(chan struct{})}, nil
}

// started begins copying once the process holds the write end. Ours is
// closed, or the copy would never see the pipe's end.
func (c *consoleCopy) started() {
	c.w.Close()
	go func() {
		defer close(c.done)
		io.Copy(c.log, c.r)
		c.r.Close()
		// A write error (a full disk) costs the console, not the cell:
		// the kernel-report search then finds less, as with no console.
		c.log.Close()
	}()
}

// abort releases everything when the process did not start.
func (c *consoleCopy) abort() {
	c.w.Close()
	c.r.Close()
	c.log.Close()
	close(c.done)
}

// wait returns once the file holds everything written to the pipe. The
// process has exited; if a child it left still holds the pipe after
// grace, the copy is ended instead of waiting on it.
func (c *consoleCopy) wait(grace time.Duration) {
	select {
	case <-c.done:
	case <-time.After(grace):
		c.r.Close()
		<-c.done
	}
}
