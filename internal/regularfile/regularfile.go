// Package regularfile opens and reads the files kregress is given where a
// file is meant (an export, an experiment file, a patch, a file of a
// kernel tree or of an experiment's directory): a FIFO, a device or a
// directory is refused at once, a read is bounded, and below a tree
// (OpenBelow) a symbolic link is refused too.
package regularfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// NotRegularError: the path is a FIFO, device, socket or directory.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s)", e.Path, Kind(e.Mode))
}

// Kind names a file type for a message.
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return "mode " + t.String()
	}
}

// TooLargeError: the file holds more than the reader's cap.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s: refused (read no further)", e.Path, Bytes(e.Limit))
}

// Bytes writes n in the largest binary unit that divides it.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// Open opens path for reading and refuses anything but a regular file
// (symbolic links followed). It opens without blocking: open(2) of a
// FIFO with no writer waits for one, so a check after a plain open
// would never run.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return f, st, nil
}

// OpenCapped is Open, refusing by its size (before reading any of it) a
// file larger than max; the caller reads through Cap so that a file
// that grows meanwhile is refused too.
func OpenCapped(path string, max int64) (*os.File, error) {
	f, _, err := openCapped(path, max)
	return f, err
}

func openCapped(path string, max int64) (*os.File, int64, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, 0, err
	}
	if st.Size() > max {
		f.Close()
		return nil, 0, &TooLargeError{Path: path, Limit: max}
	}
	return f, st.Size(), nil
}

// ReadFile reads a regular file of at most max bytes into one buffer of
// its size (no doubling as it grows).
func ReadFile(path string, max int64) ([]byte, error) {
	f, size, err := openCapped(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	b.Grow(int(size) + bytes.MinRead)
	_, err = b.ReadFrom(Cap(f, path, max))
	return b.Bytes(), err
}

// Cap reads r and fails with a *TooLargeError (naming path) once more
// than max bytes have come: a stream decoder over it stops there.
func Cap(r io.Reader, path string, max int64) io.Reader {
	return &capped{r: r, path: path, left: max, max: max}
}

type capped struct {
	r    io.Reader
	path string
	left int64
	max  int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, &TooLargeError{Path: c.path, Limit: c.max}
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, &TooLargeError{Path: c.path, Limit: c.max}
	}
	return n, err
}

// IsTooLarge reports whether err is (or wraps) a *TooLargeError.
func IsTooLarge(err error) bool {
	var tl *TooLargeError
	return errors.As(err, &tl)
}

// SymlinkBelow is the first part of rel (slash-separated, below root)
// that is a symbolic link, as a path relative to root ("" when none): a
// file reached through a link may be anywhere outside root. An error is
// Lstat's, a part that does not exist for one (errors.Is fs.ErrNotExist).
func SymlinkBelow(root, rel string) (string, error) {
	p := root
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return strings.Join(parts[:i+1], "/"), nil
		}
	}
	return "", nil
}

// SymlinkError: a part of a path below a root that is read only through
// regular files and directories is a symbolic link, which may point
// anywhere outside the root (a kernel tree's Makefile -> /dev/zero).
type SymlinkError struct {
	Path string // the link: root joined with the part of rel up to it
}

func (e *SymlinkError) Error() string {
	return e.Path + " is a symbolic link: refused (only regular files and directories are read below a kernel tree or an experiment's directory)"
}

// OutsideError: a path that must lie below a root does not (absolute, or
// climbing out with "..").
type OutsideError struct {
	Root, Rel string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s: not a path below %s: refused", e.Rel, e.Root)
}

// OpenBelow opens rel (slash-separated, relative) below root for reading
// as Open does, refusing what it may not be in a tree kregress is given
// (a kernel tree, an experiment's directory): a symbolic link at any part
// of rel (*SymlinkError naming it), a path that leaves root
// (*OutsideError), anything but a regular file (*NotRegularError), and a
// file larger than max (*TooLargeError; the caller reads through Cap so
// that one that grows is refused too). The links are refused by the
// kernel as it resolves rel (openat2's RESOLVE_NO_SYMLINKS), so a link
// swapped in after a check is refused as well; where openat2 is not
// available each part is checked first and the file opened without
// following a link.
func OpenBelow(root, rel string, max int64) (*os.File, error) {
	local := filepath.FromSlash(rel)
	if !filepath.IsLocal(local) {
		return nil, &OutsideError{Root: root, Rel: rel}
	}
	full := filepath.Join(root, local)
	f, err := openNoSymlinks(root, local)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV) {
		if link, lerr := SymlinkBelow(root, filepath.ToSlash(local)); lerr == nil && link != "" {
			return nil, &SymlinkError{Path: filepath.Join(root, filepath.FromSlash(link))}
		}
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: full, Mode: st.Mode()}
	}
	if st.Size() > max {
		f.Close()
		return nil, &TooLargeError{Path: full, Limit: max}
	}
	return f, nil
}

// ReadBelow reads rel below root into memory, through OpenBelow's
// checks: at most max bytes, or a *TooLargeError naming the file.
func ReadBelow(root, rel string, max int64) ([]byte, error) {
	f, err := OpenBelow(root, rel, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(Cap(f, f.Name(), max))
}

// openat2 is unix.Openat2; a variable so that a test can take it away.
var openat2 = unix.Openat2

// openNoSymlinks opens local (below root) read-only without blocking
// and without following a symbolic link at any part of it.
func openNoSymlinks(root, local string) (*os.File, error) {
	full := filepath.Join(root, local)
	dir, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := openat2(int(dir.Fd()), local, &how)
	switch {
	case err == nil:
		return os.NewFile(uintptr(fd), full), nil
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		// No openat2 (a kernel before 5.6, or a seccomp filter that
		// refuses it): every part checked, then the last not followed.
		link, err := SymlinkBelow(root, filepath.ToSlash(local))
		if err != nil {
			return nil, err
		}
		if link != "" {
			return nil, &SymlinkError{Path: filepath.Join(root, filepath.FromSlash(link))}
		}
		return os.OpenFile(full, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	default:
		return nil, &os.PathError{Op: "open", Path: full, Err: err}
	}
}
