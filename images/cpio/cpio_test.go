package cpio

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// sample is the shape of the guest image: directories, a device, files,
// a symlink, and names of every padding remainder.
func sample() []Entry {
	return []Entry{
		{Name: "bin", Mode: TypeDir | 0o755},
		{Name: "dev/console", Mode: TypeChar | 0o600, Major: 5, Minor: 1},
		{Name: "init", Mode: TypeRegular | 0o755, Data: []byte("\x7fELF...")},
		{Name: "etc/kagent/host_key", Mode: TypeRegular | 0o600, Data: []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n")},
		{Name: "bin/sh", Mode: TypeSymlink | 0o777, Data: []byte("busybox")},
		{Name: "a", Mode: TypeRegular | 0o644},
		{Name: "ab", Mode: TypeRegular | 0o644, Data: []byte("x")},
		{Name: "abc", Mode: TypeRegular | 0o644, Data: []byte("xy")},
	}
}

func write(t testing.TB, entries []Entry) []byte {
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, e := range entries {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func equal(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Mode != b[i].Mode || a[i].Major != b[i].Major || a[i].Minor != b[i].Minor || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

func TestRoundTrip(t *testing.T) {
	data := write(t, sample())
	if len(data)%4 != 0 {
		t.Fatalf("archive of %d bytes is not 4-aligned", len(data))
	}
	got, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	if !equal(got, sample()) {
		t.Fatalf("read back %+v", got)
	}
	if again := write(t, got); !bytes.Equal(again, data) {
		t.Fatal("write(read(x)) != x")
	}
}

// Names the format cannot carry are refused instead of corrupting the
// archive (a NUL ended the name early and shifted every later record).
func TestWriterRefusesWhatNewcCannotCarry(t *testing.T) {
	for _, name := range []string{"", "a\x00b", "TRAILER!!!", strings.Repeat("a", maxNameLen)} {
		w := NewWriter(&bytes.Buffer{})
		if err := w.Write(Entry{Name: name, Mode: TypeRegular}); err == nil {
			t.Errorf("name %.20q accepted", name)
		}
	}
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Close()
	if err := w.Write(Entry{Name: "late"}); err == nil {
		t.Error("write after the trailer accepted")
	}
	if err := w.Close(); err == nil {
		t.Error("second Close accepted")
	}
}

func TestReadRefusesDamage(t *testing.T) {
	data := write(t, sample())
	for name, d := range map[string][]byte{
		"empty":      nil,
		"truncated":  data[:len(data)-20],
		"bad magic":  append([]byte("070707"), data[6:]...),
		"no trailer": data[:len(data)-124],
		"not hex":    append(append([]byte{}, data[:14]...), append([]byte("zzzzzzzz"), data[22:]...)...),
	} {
		if _, err := Read(d); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriterReportsWriteErrors(t *testing.T) {
	w := NewWriter(&failWriter{n: 200})
	var err error
	for _, e := range sample() {
		if err = w.Write(e); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("%v", err)
	}
}
