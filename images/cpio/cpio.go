// Package cpio writes the "newc" cpio format the kernel unpacks as an
// initramfs. Entries are written in the order given with fixed owners and
// times, so the same inputs always give the same bytes (a reproducible,
// cacheable image), in the manner of u-root's pkg/cpio.
package cpio

import (
	"fmt"
	"io"
	"math"
	"strings"
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

// trailer names the record that ends an archive.
const trailer = "TRAILER!!!"

// Write appends one entry. A name the format cannot carry (empty, with a
// NUL, longer than PATH_MAX, the trailer's) or data past newc's 32-bit
// size field is refused: it would silently corrupt the archive.
func (cw *Writer) Write(e Entry) error {
	if cw.ended {
		return fmt.Errorf("cpio: write %s after trailer", e.Name)
	}
	if e.Name == "" || strings.IndexByte(e.Name, 0) >= 0 || len(e.Name)+1 > maxNameLen {
		return fmt.Errorf("cpio: invalid entry name %q", e.Name)
	}
	if e.Name == trailer {
		return fmt.Errorf("cpio: an entry may not be named %s", trailer)
	}
	if uint64(len(e.Data)) > math.MaxUint32 {
		return fmt.Errorf("cpio: %s: %d bytes do not fit newc's size field", e.Name, len(e.Data))
	}
	return cw.writeEntry(e)
}

func (cw *Writer) writeEntry(e Entry) error {
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
	if cw.ended {
		return fmt.Errorf("cpio: closed twice")
	}
	if err := cw.writeEntry(Entry{Name: trailer}); err != nil {
		return err
	}
	cw.ended = true
	return nil
}
