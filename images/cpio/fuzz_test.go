package cpio

import (
	"bytes"
	"testing"
)

// FuzzRead: Read never panics on any bytes; whatever it accepts, Writer
// writes again and Read reads back the same entries.
func FuzzRead(f *testing.F) {
	f.Add(write(f, sample()))
	f.Add(write(f, nil))
	f.Add([]byte("070701"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := Read(data)
		if err != nil {
			return
		}
		if len(entries) > len(data)/headerLen {
			t.Fatalf("%d entries from %d bytes", len(entries), len(data))
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		for _, e := range entries {
			if err := w.Write(e); err != nil {
				t.Fatalf("Read returned an entry Write refuses: %v", err)
			}
		}
		w.Close()
		again, err := Read(b.Bytes())
		if err != nil || !equal(again, entries) {
			t.Fatalf("read(write(read(x))) != read(x): %v", err)
		}
	})
}

// FuzzWrite: any entry Write accepts is read back as written, and the
// entries after it are not disturbed.
func FuzzWrite(f *testing.F) {
	for _, e := range sample() {
		f.Add(e.Name, e.Mode, e.Data, e.Major, e.Minor)
	}
	f.Fuzz(func(t *testing.T, name string, mode uint32, data []byte, major, minor uint32) {
		var b bytes.Buffer
		w := NewWriter(&b)
		e := Entry{Name: name, Mode: mode, Data: data, Major: major, Minor: minor}
		if len(e.Data) == 0 {
			e.Data = nil
		}
		if err := w.Write(e); err != nil {
			return
		}
		after := Entry{Name: "after", Mode: TypeRegular | 0o644, Data: []byte("x")}
		if err := w.Write(after); err != nil {
			t.Fatal(err)
		}
		w.Close()
		got, err := Read(b.Bytes())
		if err != nil {
			t.Fatalf("written entry unreadable: %v", err)
		}
		if !equal(got, []Entry{e, after}) {
			t.Fatalf("got %+v", got)
		}
	})
}
