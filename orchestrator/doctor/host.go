package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/results/store"
)

// Host is the real host.
type Host struct{}

func (Host) LookPath(file string) (string, error) { return exec.LookPath(file) }

func (Host) KVMUnusable() string { return vm.KVMUnusable() }

func (Host) Missing(pkgs []string) ([]string, error) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		return nil, errors.New("no dpkg-query: not a Debian system")
	}
	var missing []string
	for _, p := range pkgs {
		out, _ := exec.Command("dpkg-query", "-W", "-f=${Status}", p).Output()
		if !strings.Contains(string(out), "install ok installed") {
			missing = append(missing, p)
		}
	}
	return missing, nil
}

func (Host) Exists(path string) bool {
	_, err := os.Stat(path)
	return path != "" && err == nil
}

func (Host) FreeBytes(dir string) (uint64, error) {
	for d := dir; ; d = filepath.Dir(d) {
		var st unix.Statfs_t
		err := unix.Statfs(d, &st)
		if err == nil {
			return st.Bavail * uint64(st.Bsize), nil
		}
		if !errors.Is(err, unix.ENOENT) || d == filepath.Dir(d) {
			return 0, err
		}
	}
}

func (Host) DirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return nil // an unreadable corner is not worth failing the size for
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}

func (Host) Store(spec string) (string, bool, error) {
	given := spec
	spec, err := store.Normalize(spec)
	if err != nil {
		return store.Redact(given), false, err
	}
	where := store.Redact(spec)
	if !store.IsPostgres(spec) {
		// A run writes the file, and SQLite its journal beside it.
		if err := writable(filepath.Dir(spec)); err != nil {
			return where, false, fmt.Errorf("cannot be created or written: %w", err)
		}
		if _, err := os.Stat(spec); errors.Is(err, fs.ErrNotExist) {
			return where, false, nil
		}
		if err := unix.Access(spec, unix.W_OK); err != nil {
			return where, true, fmt.Errorf("cannot be written: %w", err)
		}
	}
	s, err := store.OpenReadOnly(spec)
	if err != nil {
		return where, true, err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = s.ListRuns(ctx, 1)
	return where, true, err
}

func (Host) Writable(dir string) error { return writable(dir) }

// writable is nil when this user can write in dir or create it: its
// nearest existing parent is a directory they can write in.
func writable(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s is not a directory", d)
		case err == nil:
			if err := unix.Access(d, unix.W_OK|unix.X_OK); err != nil {
				return fmt.Errorf("%s: %w", d, err)
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, unix.ENOTDIR), d == filepath.Dir(d):
			// ENOTDIR: a parent is a file, found further up.
			return err
		}
	}
}
