// Package cpio writes the "newc" cpio format the kernel unpacks as an
// initramfs. Entries are written in the order given with fixed owners and
// times, so the same inputs always give the same bytes (a reproducible,
// cacheable image), in the manner of u-root's pkg/cpio.
package cpio

import (
	"fmt"
	"io"
)

// Mode bits of a cpio entry.
const (
	TypeDir     = 0o040000
	TypeRegular = 0o100000
	TypeSymlink = 0o120000
	TypeChar    = 0o020000
)

// Entry is one file in the archive.
type Entry struct {
	Name  string // path without leading slash
	Mode  uint32 // type | permission bits
	Data  []byte // file contents or symlink target
	Major uint32 // device numbers for TypeChar
	Minor uint32
}

// Writer writes newc records.
type Writer struct {
	w     io.Writer
	ino   uint32
	n     int64
	ended bool
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, ino: 1} }

func (cw *Writer) write(b []byte) error {
	n, err := cw.w.Write(b)
	cw.n += int64(n)
	return err
}

func (cw *Writer) pad() error {
	if r := cw.n % 4; r != 0 {
		return cw.write(make([]byte, 4-r))
	}
	return nil
}

// Write appends one entry.
func (cw *Writer) Write(e Entry) error {
	if cw.ended {
		return fmt.Errorf("cpio: write %s after trailer", e.Name)
	}
	nlink := uint32(1)
	if e.Mode&0o170000 == TypeDir {
		nlink = 2
	}
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		cw.ino, e.Mode, 0, 0, nlink, 0, len(e.Data), 0, 0, e.Major, e.Minor, len(e.Name)+1, 0)
	cw.ino++
	if err := cw.write([]byte(hdr)); err != nil {
		return err
	}
	if err := cw.write(append([]byte(e.Name), 0)); err != nil {
		return err
	}
	if err := cw.pad(); err != nil {
		return err
	}
	if err := cw.write(e.Data); err != nil {
		return err
	}
	return cw.pad()
}

// Close writes the trailer record.
func (cw *Writer) Close() error {
	if err := cw.Write(Entry{Name: "TRAILER!!!"}); err != nil {
		return err
	}
	cw.ended = true
	return nil
}
