// Package ringbuf decodes the pages the kernel's trace ring buffer hands
// out through tracefs's per_cpu/cpuN/trace_pipe_raw: the binary records
// behind the text trace. Their timestamps are in the trace clock's own
// unit, nanoseconds for the default "local" clock, where the text trace
// prints microseconds, too coarse for lock holds of tens of microseconds:
// a percentile of them would move in steps of several percent.
//
// The layout is the one tracefs describes in events/header_page and
// events/header_event (kernel/trace/ring_buffer.c): a page header of a
// 64-bit timestamp and a 64-bit commit word (the data's length, with two
// flags for lost events in bits 31 and 30), then records, each a 32-bit
// header of a 5-bit type_len and a 27-bit time delta. Only 64-bit
// little-endian kernels (the guest is x86_64); CheckHeaderPage verifies
// that on the running kernel before any page is decoded.
package ringbuf

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Record types beside data (type_len 1..28 is a data record of
// type_len*4 bytes; 0 is a data record whose length is in the next word).
const (
	typePadding    = 29
	typeTimeExtend = 30
	typeTimeStamp  = 31

	missedEvents = 1 << 31          // RB_MISSED_EVENTS: events were lost before this page
	missedStored = 1 << 30          // RB_MISSED_STORED: their count follows the data
	commitMask   = missedStored - 1 // the data's length

	// PageHeaderSize is the offset of the first record in a page.
	PageHeaderSize = 16

	tsMSB = uint64(0xf8) << 56 // the bits an absolute timestamp record drops
)

// Event is one data record: a trace event with its common fields decoded.
type Event struct {
	TS   uint64 // trace clock (ns for "local")
	Type uint16 // common_type: the event's id, as in events/<system>/<name>/id
	PID  int32  // common_pid: the task that was current
	// Data is the whole record (common fields first); it aliases the page.
	Data []byte
}

// Page is what one page of trace_pipe_raw holds.
type Page struct {
	Events []Event
	// Missed says the kernel dropped or overwrote events before this page
	// (the buffer filled up); MissedCount is how many when the kernel
	// stored the count, else 0.
	Missed      bool
	MissedCount int64
}

// Decode decodes one page as read from trace_pipe_raw.
func Decode(page []byte) (Page, error) {
	var p Page
	if len(page) < PageHeaderSize {
		return p, fmt.Errorf("ringbuf: page of %d bytes is shorter than its header", len(page))
	}
	le := binary.LittleEndian
	ts := le.Uint64(page[0:8])
	commit := le.Uint64(page[8:16])
	data := page[PageHeaderSize:]
	size := int(commit & commitMask)
	if size > len(data) {
		return p, fmt.Errorf("ringbuf: page commits %d bytes of data but holds %d", size, len(data))
	}
	if commit&missedEvents != 0 {
		p.Missed = true
		if commit&missedStored != 0 && size+8 <= len(data) {
			p.MissedCount = int64(min(le.Uint64(data[size:size+8]), math.MaxInt64))
		}
	}
	for off := 0; off < size; {
		if off+4 > size {
			return p, fmt.Errorf("ringbuf: record header at %d runs past the data (%d bytes)", off, size)
		}
		hdr := le.Uint32(data[off:])
		typeLen, delta := hdr&0x1f, uint64(hdr>>5)
		// word is the 32 bits after the header: a length or a time's high bits.
		word := func() (uint64, error) {
			if off+8 > size {
				return 0, fmt.Errorf("ringbuf: record of type %d at %d runs past the data (%d bytes)", typeLen, off, size)
			}
			return uint64(le.Uint32(data[off+4:])), nil
		}
		switch typeLen {
		case typePadding:
			if delta == 0 { // the rest of the page is padding
				return p, nil
			}
			// A discarded event: its time does not count.
			n, err := word()
			if err != nil {
				return p, err
			}
			off += 4 + int(n)
			continue
		case typeTimeExtend:
			hi, err := word()
			if err != nil {
				return p, err
			}
			ts += hi<<27 | delta
			off += 8
			continue
		case typeTimeStamp:
			hi, err := word()
			if err != nil {
				return p, err
			}
			ts = fixAbsolute(hi<<27|delta, ts)
			off += 8
			continue
		}
		start, end := off+4, off+4+int(typeLen)*4
		if typeLen == 0 {
			n, err := word()
			if err != nil {
				return p, err
			}
			// The length word counts itself.
			start, end = off+8, off+4+int(n)
		}
		if end > size || end < start {
			return p, fmt.Errorf("ringbuf: data record at %d (%d bytes) runs past the data (%d bytes)", off, end-start, size)
		}
		ts += delta
		rec := data[start:end]
		if len(rec) < 8 {
			return p, fmt.Errorf("ringbuf: data record at %d has %d bytes, fewer than the common fields", off, len(rec))
		}
		p.Events = append(p.Events, Event{TS: ts, Type: le.Uint16(rec[0:2]), PID: int32(le.Uint32(rec[4:8])), Data: rec})
		off = end
	}
	return p, nil
}

// fixAbsolute puts back the top bits an absolute timestamp record drops,
// from the timestamp before it (rb_fix_abs_ts).
func fixAbsolute(abs, prev uint64) uint64 {
	if prev&tsMSB != 0 {
		abs |= prev & tsMSB
		if abs < prev {
			abs += 1 << 59
		}
	}
	return abs
}

// CheckHeaderPage verifies that the kernel's page layout, as tracefs
// describes it in events/header_page, is the one Decode reads.
func CheckHeaderPage(headerPage string) error {
	for _, want := range []string{"u64 timestamp;\toffset:0;\tsize:8;", "local_t commit;\toffset:8;\tsize:8;", "char data;\toffset:16;"} {
		if !strings.Contains(headerPage, want) {
			return fmt.Errorf("ringbuf: the kernel's events/header_page has no %q: not the 64-bit layout this decoder reads", want)
		}
	}
	return nil
}
