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

	"golang.org/x/sys/unix"
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

// A tree kregress is given is read through regular files and
// directories only: a link at any part, one to /dev/zero or
// /dev/urandom above all, is refused naming it, before a byte is read.
func TestReadBelowRefusesLinksDevicesAndSize(t *testing.T) {
	t.Run("openat2", testReadBelow)
	t.Run("without openat2", func(t *testing.T) {
		old := openat2
		openat2 = func(int, string, *unix.OpenHow) (int, error) { return -1, unix.ENOSYS }
		defer func() { openat2 = old }()
		testReadBelow(t)
	})
}

func testReadBelow(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600)
	os.MkdirAll(filepath.Join(root, "d"), 0o755)
	os.WriteFile(filepath.Join(root, "d", "ok"), []byte("fine\n"), 0o644)
	os.WriteFile(filepath.Join(root, "big"), bytes.Repeat([]byte("x"), 100), 0o644)
	for name, target := range map[string]string{"zero": "/dev/zero", "random": "/dev/urandom", "up": "../" + filepath.Base(outside) + "/secret"} {
		if err := os.Symlink(target, filepath.Join(root, "d", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "d", "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadBelow(root, "d/ok", 64); err != nil || string(b) != "fine\n" {
		t.Fatalf("a regular file: %q %v", b, err)
	}
	for rel, want := range map[string]string{
		"d/zero":         filepath.Join(root, "d", "zero") + " is a symbolic link",
		"d/random":       filepath.Join(root, "d", "random") + " is a symbolic link",
		"d/up":           filepath.Join(root, "d", "up") + " is a symbolic link",
		"linkdir/secret": filepath.Join(root, "linkdir") + " is a symbolic link",
		"d/fifo":         "not a regular file (a named pipe)",
		"d":              "not a regular file (a directory)",
		"big":            filepath.Join(root, "big") + " is larger than 64 bytes",
		"../x":           "../x: not a path below " + root,
		"/etc/passwd":    "/etc/passwd: not a path below " + root,
	} {
		b, err := ReadBelow(root, rel, 64)
		if err == nil || !strings.Contains(err.Error(), want) || b != nil {
			t.Errorf("%s: %d bytes, %v; want an error with %q", rel, len(b), err, want)
		}
	}
	if _, err := ReadBelow(root, "d/none", 64); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}
