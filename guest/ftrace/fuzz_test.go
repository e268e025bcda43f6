package ftrace

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// FuzzParseLatencyTrace: any text parses without panic; what it returns
// comes from the text (the holder is one of the section's own points or
// frames) and the stack has at most one frame per line.
func FuzzParseLatencyTrace(f *testing.F) {
	f.Add(seedTrace)
	f.Add("# latency: 12 us, #1/1, CPU#0\n#  => started at: a+0x1/0x2\n#  => ended at: _raw_spin_unlock_irq\n => f\n => g+0x3/0x4\n")
	f.Add("# latency: 99999999999999999999999 us, CPU#99999999999999999999\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseLatencyTrace(text)
		if err != nil {
			return
		}
		if len(s.Stack) > strings.Count(text, "\n")+1 {
			t.Fatalf("%d frames from %d lines", len(s.Stack), strings.Count(text, "\n")+1)
		}
		ok := s.Holder == s.StartedAt || s.Holder == s.EndedAt
		for _, f := range s.Stack {
			ok = ok || s.Holder == f
			if !strings.Contains(text, f) {
				t.Fatalf("frame %q is not in the text", f)
			}
		}
		if !ok {
			t.Fatalf("holder %q is none of the section's points or frames", s.Holder)
		}
		if s.LatencyUS < 0 {
			t.Fatalf("negative latency %d", s.LatencyUS)
		}
	})
}

// FuzzFeed: pages of any content fed to the lock-hold pairing, on any
// CPU, never panic, never yield a negative or non-finite hold, and the
// count of lost events never goes down.
func FuzzFeed(f *testing.F) {
	f.Add(rawPage(10_000_000, false, [3]uint64{10, 40, 7}, [3]uint64{17_345, 41, 7}, [3]uint64{100, 40, 7}), uint8(0))
	f.Add(rawPage(10_090_000, true, [3]uint64{10, 41, 9}, [3]uint64{10, 40, 3}, [3]uint64{5_000, 41, 3}), uint8(1))
	// A stored count of lost events near 2^62: four of them overflowed
	// the running total into a negative count.
	huge := rawPage(0, true)
	binary.LittleEndian.PutUint64(huge[8:], 1<<31|1<<30)
	binary.LittleEndian.PutUint64(huge[16:], 1<<62+1)
	f.Add(huge, uint8(2))
	f.Fuzz(func(t *testing.T, page []byte, cpu uint8) {
		l := NewLockHoldsParser(40, 41)
		// The page twice (a hold may span pages) and split in halves,
		// each as its own read.
		var lost int64
		for _, p := range [][]byte{page, page, page[:len(page)/2], page[len(page)/2:]} {
			l.Feed(int(cpu%4), p)
			if l.lost < lost {
				t.Fatalf("lost events went from %d to %d", lost, l.lost)
			}
			lost = l.lost
		}
		if len(l.Holds()) > 4*len(page)/12 {
			t.Fatalf("%d holds from %d bytes", len(l.Holds()), 4*len(page))
		}
		for _, h := range l.Holds() {
			if h.US < 0 || math.IsNaN(h.US) || math.IsInf(h.US, 0) {
				t.Fatalf("hold %v", h.US)
			}
		}
	})
}
