package cpio

import (
	"bytes"
	"fmt"
	"strconv"
)

// headerLen is a newc header: the magic and 13 eight-digit hex fields.
const headerLen = 6 + 13*8

// maxNameLen bounds an entry's name (PATH_MAX).
const maxNameLen = 4096

// Read parses a whole newc archive written by Writer (or any newc
// archive without hard links) up to its trailer. Entries' Data alias
// data. It lets the image builder check what a cached image holds
// (its SSH keys) without trusting a side file.
func Read(data []byte) ([]Entry, error) {
	var out []Entry
	off := 0
	for {
		if len(data)-off < headerLen {
			return nil, fmt.Errorf("cpio: truncated header at offset %d", off)
		}
		h := data[off : off+headerLen]
		if string(h[:6]) != "070701" {
			return nil, fmt.Errorf("cpio: bad magic %q at offset %d", h[:6], off)
		}
		var f [13]uint64
		for i := range f {
			v, err := strconv.ParseUint(string(h[6+8*i:14+8*i]), 16, 32)
			if err != nil {
				return nil, fmt.Errorf("cpio: header field %d at offset %d: %q is not hex", i, off, h[6+8*i:14+8*i])
			}
			f[i] = v
		}
		mode, size, major, minor, namesize := uint32(f[1]), f[6], uint32(f[9]), uint32(f[10]), f[11]
		if namesize < 2 || namesize > maxNameLen {
			return nil, fmt.Errorf("cpio: name size %d at offset %d", namesize, off)
		}
		nameStart := off + headerLen
		if uint64(len(data)-nameStart) < namesize {
			return nil, fmt.Errorf("cpio: truncated name at offset %d", nameStart)
		}
		name := data[nameStart : nameStart+int(namesize)]
		if name[len(name)-1] != 0 || bytes.IndexByte(name[:len(name)-1], 0) >= 0 {
			return nil, fmt.Errorf("cpio: name at offset %d is not one NUL-terminated string", nameStart)
		}
		dataStart := align4(nameStart + int(namesize))
		if dataStart > len(data) || uint64(len(data)-dataStart) < size {
			return nil, fmt.Errorf("cpio: %q: truncated data (%d bytes)", name[:len(name)-1], size)
		}
		e := Entry{Name: string(name[:len(name)-1]), Mode: mode, Major: major, Minor: minor}
		if size > 0 {
			e.Data = data[dataStart : dataStart+int(size)]
		}
		off = align4(dataStart + int(size))
		if e.Name == trailer {
			return out, nil
		}
		out = append(out, e)
		if off > len(data) {
			return nil, fmt.Errorf("cpio: no trailer")
		}
	}
}

func align4(n int) int { return (n + 3) &^ 3 }
