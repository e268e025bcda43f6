// Package filecopy copies a regular file's bytes into a new file. The
// guest (a workload's private copy of its helper binary) and the
// orchestrator (a built kernel into the cache, a pristine source file
// back over a patched one) both need it, and the guest may not import
// the orchestrator.
package filecopy

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Replace copies src to dst, creating dst with perm (before the umask)
// or truncating it if it exists; an existing dst keeps its mode.
func Replace(src, dst string, perm fs.FileMode) error {
	return copyTo(src, dst, os.O_TRUNC, perm)
}

// CreateNew copies src to dst, which must not exist yet: a temporary
// name another writer took is an error, not a file overwritten.
func CreateNew(src, dst string, perm fs.FileMode) error {
	return copyTo(src, dst, os.O_EXCL, perm)
}

func copyTo(src, dst string, flag int, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|flag, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Close()
}
