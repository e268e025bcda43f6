// Package outfile writes the report files a command is asked for
// (-o FMT=FILE): a report never replaces what is not a report (a device,
// a directory, a results store) and is written atomically, through a
// temporary file renamed into place, so a failure never empties one.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/kregress/kregress/internal/usage"
)

// SQLiteMagic starts every SQLite database file.
const SQLiteMagic = "SQLite format 3\x00"

// Target is the file a report at path writes: the path, or the regular
// file its symbolic link points to (the link is kept), made absolute. It
// refuses what a report must never replace: "-" and anything not a
// regular file (a device such as /dev/stdout or /dev/null, a pipe, a
// directory; the report is written by renaming a temporary file over its
// target, which would replace the device itself), a SQLite database (a
// results store: writing a report over it loses every run), and a path
// whose directory does not exist.
func Target(path string) (string, error) {
	if path == "-" {
		return "", errors.New(`"-" is not a file: for standard output give -f FMT instead of -o`)
	}
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case err == nil && st.IsDir():
		return "", fmt.Errorf("%s is a directory (give a file name)", path)
	case err == nil && !st.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file (a device, pipe or socket): reports are written to files; for standard output give -f FMT", path)
	case err == nil:
		if isSQLite(abs) {
			return "", fmt.Errorf("%s is a SQLite database (a results store?): a report never replaces it", path)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if st, err := os.Stat(filepath.Dir(abs)); err != nil || !st.IsDir() {
		return "", fmt.Errorf("the directory of %s does not exist", path)
	}
	return abs, nil
}

// isSQLite reports whether the file at path starts with SQLite's magic.
func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(SQLiteMagic))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == SQLiteMagic
}

// Write writes data as the report at path, rendered whole beforehand so
// a failure leaves the file as it was. Target is checked again, as the
// file may have changed since the command checked it at its start; its
// refusal is a usage error naming the path as the user wrote it.
func Write(path string, data []byte) error {
	return WriteFrom(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// WriteFrom is Write of what render writes, as it writes it (buffered,
// into the temporary file): a long report is never held whole in
// memory, and a failure of render leaves the file as it was.
func WriteFrom(path string, render func(io.Writer) error) error {
	target, err := Target(path)
	if err != nil {
		return usage.Errorf("-o %s: %w", path, err)
	}
	return WriteAtomic(target, func(f *os.File) error {
		bw := bufio.NewWriter(f)
		if err := render(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// WriteAtomic writes path through a temporary file renamed into
// place, so a failure never leaves it empty or half written. A new file
// gets the mode os.Create would give it (0666 less the umask: reports,
// exports and diffs are for sharing, and carry no password since DSNs
// are redacted); a file that exists keeps its mode.
func WriteAtomic(path string, write func(*os.File) error) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usage.Wrap(fmt.Errorf("cannot write %s: it is a directory (give a file name)", path))
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return usage.Wrap(fmt.Errorf("cannot write %s: its directory %s does not exist", path, filepath.Dir(path)))
	}
	var keep os.FileMode
	if st, err := os.Stat(path); err == nil {
		keep = st.Mode().Perm()
	}
	f, err := createBeside(path)
	if err != nil {
		// The temporary file is beside path: name path, which the user gave.
		return fmt.Errorf("cannot write %s (a temporary file in its directory): %w", path, err)
	}
	defer os.Remove(f.Name())
	if keep != 0 {
		if err := f.Chmod(keep); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// createBeside creates a new temporary file in path's directory (the
// same file system, so the rename is atomic).
func createBeside(path string) (*os.File, error) {
	var f *os.File
	var err error
	for i := 0; i < 100; i++ {
		// Not os.CreateTemp: it makes every file 0600.
		name := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.tmp-%d-%d", filepath.Base(path), os.Getpid(), rand.Uint32()))
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return f, err
}
