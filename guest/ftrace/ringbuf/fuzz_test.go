package ringbuf

import (
	"encoding/binary"
	"testing"
	"unsafe"
)

// FuzzDecode: any page (the kernel's, or a corrupted one) decodes without
// panic into events that lie inside the page's committed data, at most
// one per 12 bytes (a header word and the 8 bytes of common fields).
func FuzzDecode(f *testing.F) {
	var b pageBuilder
	b.ts = 1_000_000
	b.event(10, 40, 7, 4, false)
	b.extend(1 << 30)
	b.event(5, 41, 7, 0, true)
	b.discarded(3, 12)
	b.absolute(5_000_000_000)
	b.event(1, 42, 8, 8, false)
	f.Add(b.bytes(4096))
	b.commit = missedEvents | missedStored
	f.Add(append(b.bytes(4096)[:16+len(b.data)], 9, 0, 0, 0, 0, 0, 0, 0))
	f.Add(make([]byte, 16))
	f.Fuzz(func(t *testing.T, page []byte) {
		p, err := Decode(page)
		if err != nil {
			return
		}
		size := int(binary.LittleEndian.Uint64(page[8:16]) & commitMask)
		data := page[PageHeaderSize : PageHeaderSize+size]
		if len(p.Events) > size/12 {
			t.Fatalf("%d events from %d bytes", len(p.Events), size)
		}
		for _, ev := range p.Events {
			if len(ev.Data) < 8 {
				t.Fatalf("event of %d bytes", len(ev.Data))
			}
			start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
			at := uintptr(unsafe.Pointer(unsafe.SliceData(ev.Data)))
			if at < start || at+uintptr(len(ev.Data)) > start+uintptr(len(data)) {
				t.Fatal("event data outside the page's committed data")
			}
		}
	})
}

// FuzzRoundTrip: pages written the way the kernel writes them (data
// records short and long, time extends, discarded records), from a
// fuzzed script, decode to exactly the events written.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 1, 9, 9, 9, 9, 9, 9, 9, 2, 0, 0, 0, 0, 0, 1, 0, 3, 1, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, script []byte) {
		var b pageBuilder
		b.ts = 1 << 40
		ts := b.ts
		var want []Event
		for ; len(script) >= 8; script = script[8:] {
			s := script[:8]
			op := s[0] % 4
			delta := uint64(binary.LittleEndian.Uint32(s[1:5]) & (1<<27 - 1))
			if len(b.data) > 4096-16-64 {
				break
			}
			switch op {
			case 0, 1:
				typ, pid := binary.LittleEndian.Uint16(s[5:7]), int32(s[7])-128
				b.event(delta, typ, pid, int(s[7]%24), op == 1)
				ts += delta
				want = append(want, Event{TS: ts, Type: typ, PID: pid})
			case 2:
				d := uint64(binary.LittleEndian.Uint32(s[1:5]))<<8 | uint64(s[5])
				b.extend(d)
				ts += d
			case 3:
				if delta == 0 {
					delta = 1 // 0 would mean "the rest is padding"
				}
				b.discarded(delta, 4+4*int(s[5]%8))
			}
		}
		p, err := Decode(b.bytes(4096))
		if err != nil {
			t.Fatalf("a well-formed page: %v", err)
		}
		if len(p.Events) != len(want) {
			t.Fatalf("%d events, want %d", len(p.Events), len(want))
		}
		for i, ev := range p.Events {
			if ev.TS != want[i].TS || ev.Type != want[i].Type || ev.PID != want[i].PID {
				t.Fatalf("event %d: got ts %d type %d pid %d, want %+v", i, ev.TS, ev.Type, ev.PID, want[i])
			}
		}
	})
}
