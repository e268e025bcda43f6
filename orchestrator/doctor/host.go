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

// Missing asks dpkg-query once for every package (a query per package
// took 2-3 s each on a loaded host): it prints a line for each package it
// knows and exits 1 when some are unknown, which are missing too.
func (Host) Missing(pkgs []string) ([]string, error) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		return nil, errors.New("no dpkg-query: not a Debian system")
	}
	args := append([]string{"-W", "-f=${Package}\t${Status}\n", "--"}, pkgs...)
	out, err := exec.Command("dpkg-query", args...).Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("dpkg-query: %w", err)
	}
	return notInstalled(string(out), pkgs), nil
}

// notInstalled is which of pkgs dpkg-query's output (a "package\tstatus"
// line per package it knows; an architecture after a colon is dropped)
// does not say are installed.
func notInstalled(out string, pkgs []string) []string {
	installed := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		name, status, ok := strings.Cut(line, "\t")
		name, _, _ = strings.Cut(name, ":")
		if ok && strings.Contains(status, "install ok installed") {
			installed[name] = true
		}
	}
	var missing []string
	for _, p := range pkgs {
		if !installed[p] {
			missing = append(missing, p)
		}
	}
	return missing
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
			// Where access(2) says yes and mkdir still fails (root
			// under /proc), a first run fails: create the directory
			// as it would, then remove what was created.
			if err := mkdirAsARunWould(filepath.Dir(spec)); err != nil {
				return where, false, fmt.Errorf("cannot be created: %w", err)
			}
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

// mkdirAsARunWould creates dir and its parents (0755, as the store's
// open does), then removes those it created, deepest first.
func mkdirAsARunWould(dir string) error {
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = append(created, d)
	}
	err := os.MkdirAll(dir, 0o755)
	for _, d := range created {
		os.Remove(d) // only an empty one: what MkdirAll made
	}
	return err
}

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
