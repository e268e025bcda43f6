package ringbuf

import (
	"encoding/binary"
	"strings"
	"testing"
)

// pageBuilder writes records the way the kernel's ring buffer does.
type pageBuilder struct {
	ts     uint64
	commit uint64
	data   []byte
}

func (b *pageBuilder) word(v uint32) { b.data = binary.LittleEndian.AppendUint32(b.data, v) }

func (b *pageBuilder) header(typeLen uint32, delta uint64) {
	if delta >= 1<<27 {
		panic("delta needs a time extend")
	}
	b.word(typeLen | uint32(delta)<<5)
}

// event appends a data record of the common fields plus extra payload
// bytes; long forces the type_len 0 form with a length word.
func (b *pageBuilder) event(delta uint64, typ uint16, pid int32, extra int, long bool) {
	rec := binary.LittleEndian.AppendUint16(nil, typ)
	rec = append(rec, 0, 0)
	rec = binary.LittleEndian.AppendUint32(rec, uint32(pid))
	rec = append(rec, make([]byte, extra)...)
	for len(rec)%4 != 0 {
		rec = append(rec, 0)
	}
	if long {
		b.header(0, delta)
		b.word(uint32(len(rec) + 4))
	} else {
		b.header(uint32(len(rec)/4), delta)
	}
	b.data = append(b.data, rec...)
}

func (b *pageBuilder) extend(delta uint64) {
	b.header(typeTimeExtend, delta&(1<<27-1))
	b.word(uint32(delta >> 27))
}

func (b *pageBuilder) absolute(ts uint64) {
	b.header(typeTimeStamp, ts&(1<<27-1))
	b.word(uint32((ts &^ tsMSB) >> 27))
}

func (b *pageBuilder) discarded(delta uint64, n int) {
	b.header(typePadding, delta)
	b.word(uint32(n))
	b.data = append(b.data, make([]byte, n-4)...)
}

func (b *pageBuilder) bytes(pageSize int) []byte {
	p := binary.LittleEndian.AppendUint64(nil, b.ts)
	p = binary.LittleEndian.AppendUint64(p, uint64(len(b.data))|b.commit)
	p = append(p, b.data...)
	return append(p, make([]byte, pageSize-len(p))...)
}

func TestDecodeTimesAndFields(t *testing.T) {
	b := &pageBuilder{ts: 5_000_000_000}
	b.event(17, 300, 42, 12, false)    // ts 5e9+17
	b.discarded(99, 12)                // does not move the clock
	b.event(17_345, 301, 42, 4, false) // +17345 ns
	b.extend(3 << 27)                  // a gap longer than 27 bits
	b.event(5, 300, 7, 40, true)       // type_len 0 with a length word
	b.absolute(tsMSB | 9_000_000_000)  // an absolute stamp drops the top bits
	b.event(1, 301, 7, 0, false)
	page := b.bytes(4096)

	p, err := Decode(page)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{TS: 5_000_000_017, Type: 300, PID: 42},
		{TS: 5_000_017_362, Type: 301, PID: 42},
		{TS: 5_000_017_362 + 3<<27 + 5, Type: 300, PID: 7},
		{TS: 9_000_000_001, Type: 301, PID: 7},
	}
	if len(p.Events) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(p.Events), len(want), p.Events)
	}
	for i, w := range want {
		if g := p.Events[i]; g.TS != w.TS || g.Type != w.Type || g.PID != w.PID {
			t.Errorf("event %d: got ts %d type %d pid %d, want %+v", i, g.TS, g.Type, g.PID, w)
		}
	}
	if n := len(p.Events[2].Data); n != 48 {
		t.Errorf("long record has %d bytes, want 48", n)
	}
	if p.Missed {
		t.Error("a page without the flag reported lost events")
	}
}

func TestFixAbsoluteCarriesTopBits(t *testing.T) {
	// The previous stamp had the top bits set; the absolute one lost them.
	if got := fixAbsolute(100, tsMSB|50); got != tsMSB|100 {
		t.Fatalf("got %x", got)
	}
	// The low bits wrapped past the previous stamp's: the top bits moved on.
	if got := fixAbsolute(10, 1<<59|(1<<59-5)); got != 2<<59|10 {
		t.Fatalf("wrap: got %x", got)
	}
	if got := fixAbsolute(123, 7); got != 123 {
		t.Fatalf("no top bits: got %d", got)
	}
}

func TestDecodeMissedEvents(t *testing.T) {
	b := &pageBuilder{ts: 1, commit: missedEvents | missedStored}
	b.event(1, 300, 1, 0, false)
	page := b.bytes(4096)
	// The count of lost events follows the data.
	binary.LittleEndian.PutUint64(page[PageHeaderSize+len(b.data):], 1234)
	p, err := Decode(page)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Missed || p.MissedCount != 1234 || len(p.Events) != 1 {
		t.Fatalf("got %+v", p)
	}
	b = &pageBuilder{ts: 1, commit: missedEvents}
	b.event(1, 300, 1, 0, false)
	if p, _ := Decode(b.bytes(4096)); !p.Missed || p.MissedCount != 0 {
		t.Fatalf("unstored count: %+v", p)
	}
}

func TestDecodeStopsAtNullPadding(t *testing.T) {
	b := &pageBuilder{ts: 10}
	b.event(1, 300, 1, 0, false)
	b.header(typePadding, 0)
	b.data = append(b.data, make([]byte, 60)...)
	p, err := Decode(b.bytes(4096))
	if err != nil || len(p.Events) != 1 {
		t.Fatalf("events %d, err %v", len(p.Events), err)
	}
}

func TestDecodeRejectsCorruptPages(t *testing.T) {
	short := &pageBuilder{ts: 1}
	short.event(1, 300, 1, 8, false)
	page := short.bytes(64)
	binary.LittleEndian.PutUint64(page[8:], 60) // commits more than the page holds
	cases := map[string][]byte{
		"header":      make([]byte, 8),
		"commit":      page,
		"truncated":   func() []byte { b := &pageBuilder{}; b.header(4, 1); return b.bytes(64) }(),
		"length":      func() []byte { b := &pageBuilder{}; b.header(0, 1); b.word(4000); return b.bytes(64) }(),
		"tiny":        func() []byte { b := &pageBuilder{}; b.header(1, 1); b.word(0); return b.bytes(64) }(),
		"half-extend": func() []byte { b := &pageBuilder{}; b.header(typeTimeExtend, 1); return b.bytes(64) }(),
	}
	for name, pg := range cases {
		if _, err := Decode(pg); err == nil {
			t.Errorf("%s: a corrupt page decoded", name)
		} else if !strings.HasPrefix(err.Error(), "ringbuf: ") {
			t.Errorf("%s: error %q does not name the decoder", name, err)
		}
	}
}

func TestCheckHeaderPage(t *testing.T) {
	// events/header_page of a 6.12 x86_64 kernel.
	real := "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n"
	if err := CheckHeaderPage(real); err != nil {
		t.Fatal(err)
	}
	thirtyTwo := strings.ReplaceAll(strings.ReplaceAll(real, "offset:8;\tsize:8", "offset:8;\tsize:4"), "offset:16", "offset:12")
	if err := CheckHeaderPage(thirtyTwo); err == nil {
		t.Fatal("a 32-bit layout passed")
	}
}
