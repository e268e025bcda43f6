// Package logread reads bounded parts of a log a guest writes (its serial
// console, its dmesg): a guest can write gigabytes, so no reader takes a
// log whole unless it is small. The console's tail (the panic line, the
// last lines of an error) and a log's head and tail (the kernel reports
// of a boot's start and end) are the two ways kregress reads them.
package logread

import (
	"fmt"
	"io"
	"os"
)

// open opens path and returns it with its size.
func open(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// Tail returns the last n bytes of a file (all of it when shorter).
func Tail(path string, n int64) ([]byte, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > n {
		if _, err := f.Seek(size-n, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, n))
}

// HeadTail reads a file whole when it is at most max bytes, else its
// first and last max/2 bytes with a line between that says what was
// skipped.
func HeadTail(path string, max int64) ([]byte, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size <= max {
		return io.ReadAll(io.LimitReader(f, max))
	}
	half := max / 2
	buf := make([]byte, half, max+64)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, err
	}
	buf = fmt.Appendf(buf, "\n[kregress: %d bytes of %s skipped]\n", size-2*half, path)
	tail := make([]byte, half)
	if _, err := f.ReadAt(tail, size-half); err != nil && err != io.EOF {
		return nil, err
	}
	return append(buf, tail...), nil
}
