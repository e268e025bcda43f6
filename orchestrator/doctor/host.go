package doctor

import (
	"context"
	"errors"
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
		if _, err := os.Stat(spec); errors.Is(err, fs.ErrNotExist) {
			return where, false, nil
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
