package doctor

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// One dpkg-query answers for every package: the ones it prints installed
// are not missing, one it prints otherwise (deinstalled, half-configured)
// or not at all (unknown) is.
func TestNotInstalled(t *testing.T) {
	out := "qemu-system-x86\tinstall ok installed\nflex\tdeinstall ok config-files\nlibelf-dev:amd64\tinstall ok installed\n"
	got := notInstalled(out, []string{"qemu-system-x86", "flex", "libelf-dev", "bison"})
	if !slices.Equal(got, []string{"flex", "bison"}) {
		t.Fatalf("missing %q, want flex and bison", got)
	}
}

// The real host's query, when dpkg-query exists: the answer per package
// is the same as asking for each alone.
func TestMissingOneQuery(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Logf("no dpkg-query here: %v (TestNotInstalled covers the parsing)", err)
		return
	}
	pkgs := []string{"dpkg", "no-such-package-kregress"}
	got, err := Host{}.Missing(pkgs)
	if err != nil || !slices.Equal(got, []string{"no-such-package-kregress"}) {
		t.Fatalf("Missing(%q) = %q, %v", pkgs, got, err)
	}
}

// A store directory that cannot be made is a failed store check even
// when access(2) allows it (root under /proc): the first run's mkdir
// would fail. One that can is made and removed again.
func TestStoreDirectoryMadeAsARunWould(t *testing.T) {
	if _, _, err := (Host{}).Store("/proc/nope/kregress.db"); err == nil || !strings.Contains(err.Error(), "/proc/nope") {
		t.Fatalf("store under /proc/nope: %v, want an error naming it", err)
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	where, exists, err := (Host{}).Store(filepath.Join(dir, "kregress.db"))
	if err != nil || exists || where == "" {
		t.Fatalf("a store to be created: %q %v %v", where, exists, err)
	}
	if _, err := os.Stat(filepath.Dir(dir)); err == nil {
		t.Fatalf("doctor left %s behind", filepath.Dir(dir))
	}
}
