package regularfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo:        "a named pipe",
		"/dev/zero": "a character device",
		dir:         "a directory",
	} {
		// A FIFO with no writer: a plain open would block here forever.
		_, _, err := Open(path)
		var nr *NotRegularError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("Open(%s) = %v, want a NotRegularError saying %q", path, err, want)
		}
	}
}

func TestCapStopsAtTheLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, bytes.Repeat([]byte("a"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 100); err != nil || len(b) != 100 {
		t.Errorf("ReadFile at the cap: %d bytes, %v", len(b), err)
	}
	if _, err := ReadFile(p, 99); !IsTooLarge(err) {
		t.Errorf("ReadFile over the cap by its size: %v", err)
	}
	// A stream that does not say its size: refused once past the cap.
	n, err := io.Copy(io.Discard, Cap(io.LimitReader(zero{}, 1<<20), "stream", 1000))
	if !IsTooLarge(err) || n > 1001 {
		t.Errorf("Cap over an endless stream: %d bytes read, %v", n, err)
	}
}

type zero struct{}

func (zero) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// SymlinkBelow names the first linked part below the root, not the root
// itself, and reports a missing part as Lstat's error.
func TestSymlinkBelow(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "b", "f"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "l"))
	os.Symlink("/etc/hostname", filepath.Join(root, "a", "b", "g"))
	linkedRoot := filepath.Join(t.TempDir(), "root")
	os.Symlink(root, linkedRoot)
	for _, tc := range []struct{ root, rel, link string }{
		{root, "a/b/f", ""},
		{root, "l/b/f", "l"},
		{root, "a/b/g", "a/b/g"},
		{linkedRoot, "a/b/f", ""}, // the root may be a link: only below it counts
	} {
		link, err := SymlinkBelow(tc.root, tc.rel)
		if err != nil || link != tc.link {
			t.Errorf("%s below %s: %q, %v; want %q", tc.rel, tc.root, link, err, tc.link)
		}
	}
	if _, err := SymlinkBelow(root, "a/nosuch/f"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing part: %v, want not exist", err)
	}
}
