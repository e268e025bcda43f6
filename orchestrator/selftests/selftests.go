// Package selftests builds the kernel's own cgroup selftests
// (tools/testing/selftests/cgroup of the very source tree the variants are
// built from), and a few mm ones, as static binaries for the guest image. They are the
// correctness gate: a variant whose selftest outcomes differ from its
// family's baseline is flagged, which is what the cpuset backport's author
// checked by hand.
//
// Builds are cached per source identity and compiler: the selftests do not
// depend on the variant's patches (none of them touch tools/), so every
// variant of every family shares one set of binaries.
package selftests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/orchestrator/filelock"
)

// SuiteDir is the selftests' directory inside a kernel tree.
const SuiteDir = "tools/testing/selftests/cgroup"

// GuestDir is where the binaries live in the guest image: the cgroup
// tests by name, the mm ones under mm/.
const GuestDir = "/usr/lib/kselftest/gate"

// MMDir is the mm selftests' directory inside a kernel tree.
const MMDir = "tools/testing/selftests/mm"

// MMPrograms are the mm selftests a gate can name ("mm/<program>"), with
// the sources each is linked from: the ones that exercise the LRU batches
// (mlock moves pages between LRUs through them, compaction drains them on
// every CPU) and build statically without extra libraries.
var MMPrograms = map[string][]string{
	"mm/compaction_test": {"compaction_test.c", "vm_util.c"},
	"mm/mlock2-tests":    {"mlock2-tests.c", "vm_util.c"},
	"mm/madv_populate":   {"madv_populate.c", "vm_util.c"},
}

// DefaultBinaries are the cgroup selftests of the correctness gate: every
// C test of the directory. The guest gives them what they assume (swap,
// a disk filesystem to work in, hugetlb accounting, zswap: guest/testenv).
var DefaultBinaries = []string{"test_core", "test_cpu", "test_cpuset", "test_freezer", "test_hugetlb_memcg", "test_kill", "test_kmem", "test_memcontrol", "test_pids", "test_zswap"}

// flagsVersion changes when the way binaries are built changes, so cached
// binaries from an older kregress are not reused.
const flagsVersion = "kregress-selftests/4 -static -s (no -O2, no tools/include)"

// Binary is one built selftest program.
type Binary struct {
	Name string // test_core
	Path string // on the host, in the cache
}

// Suite is a set of built selftest binaries.
type Suite struct {
	Key      string
	Binaries []Binary
}

// Builder builds selftests into CacheDir/selftests/<key>/.
type Builder struct {
	CacheDir string
	Progress func(msg string)
}

var nameRE = regexp.MustCompile(`^test_[a-z0-9_]+$`)

// Available lists the C selftests the tree has (test_*.c in SuiteDir).
func Available(tree string) ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(tree, SuiteDir, "test_*.c"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".c"))
	}
	sort.Strings(names)
	return names, nil
}

// Build returns the named binaries built from tree (a pristine kernel
// source), compiling only those not cached yet. sourceID identifies the
// tree; compiler is the compiler's version line. Nothing is written inside
// tree: make's OUTPUT points into the cache.
func (b *Builder) Build(ctx context.Context, tree, sourceID, compiler string, names []string) (*Suite, error) {
	if len(names) == 0 {
		return &Suite{}, nil
	}
	avail, err := Available(tree)
	if err != nil {
		return nil, fmt.Errorf("selftests: %w", err)
	}
	for _, n := range names {
		if _, mm := MMPrograms[n]; mm {
			continue
		}
		if !nameRE.MatchString(n) || !contains(avail, n) {
			return nil, fmt.Errorf("selftests: %s is not a cgroup selftest of %s (it has: %s) nor one of the mm programs kregress builds (%s)",
				n, filepath.Join(tree, SuiteDir), strings.Join(avail, ", "), strings.Join(slices.Sorted(maps.Keys(MMPrograms)), ", "))
		}
	}
	h := sha256.Sum256([]byte(flagsVersion + "\x00" + sourceID + "\x00" + compiler))
	key := hex.EncodeToString(h[:])[:16]
	dir := filepath.Join(b.CacheDir, "selftests", key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("selftests: %w", err)
	}
	// Two runs may build the same binaries at once; make into one OUTPUT
	// directory is not safe against that.
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, fmt.Errorf("selftests: %w", err)
	}
	defer unlock()
	suite := &Suite{Key: key}
	for _, n := range names {
		path := filepath.Join(dir, n)
		if _, err := os.Stat(path); err != nil {
			if b.Progress != nil {
				b.Progress(fmt.Sprintf("selftests: building %s (static)", n))
			}
			build := b.make
			if _, mm := MMPrograms[n]; mm {
				build = b.compileMM
			}
			if err := build(ctx, tree, dir, n); err != nil {
				return nil, err
			}
		}
		suite.Binaries = append(suite.Binaries, Binary{Name: n, Path: path})
	}
	return suite, nil
}

// make builds one selftest into out/<name>.tmp's directory and renames it
// into place only when the build succeeded and the result is static.
func (b *Builder) make(ctx context.Context, tree, out, name string) error {
	tmp := filepath.Join(out, "build")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("selftests: %w", err)
	}
	suiteDir := filepath.Join(tree, SuiteDir)
	selftests := filepath.Join(tree, "tools/testing/selftests")
	// CFLAGS replaces lib.mk's, so the include paths it would have added
	// are given here; -static because the guest image has no libc. Not
	// tools/include: its linux/sysinfo.h hides glibc's struct sysinfo,
	// which test_zswap uses. Not -O2 either, as kselftest's own flags:
	// the memory tests touch memory they then free unread (alloc_anon,
	// check_first), and an optimising compiler drops those stores and
	// loads, so nothing is ever charged and the OOM killer never runs.
	// -s: no symbol table, less for every boot of the image to unpack.
	cflags := strings.Join([]string{"-static", "-s", "-Wall", "-pthread",
		"-I" + selftests, "-I" + suiteDir}, " ")
	cmd := exec.CommandContext(ctx, "make", "-s", "-C", suiteDir, "OUTPUT="+tmp, "CFLAGS="+cflags, filepath.Join(tmp, name))
	return install(cmd, name, filepath.Join(tmp, name), filepath.Join(out, name))
}

// compileMM builds one mm program with the compiler directly: the mm
// Makefile builds every program and needs libraries the gate's do not.
func (b *Builder) compileMM(ctx context.Context, tree, out, name string) error {
	suite := filepath.Join(tree, MMDir)
	tmp := filepath.Join(out, "build", name)
	if err := os.MkdirAll(filepath.Dir(tmp), 0o755); err != nil {
		return fmt.Errorf("selftests: %w", err)
	}
	args := []string{"-static", "-s", "-Wall", "-I", filepath.Join(tree, "tools/testing/selftests"),
		"-isystem", filepath.Join(tree, "tools/include/uapi"), "-o", tmp}
	for _, src := range MMPrograms[name] {
		args = append(args, filepath.Join(suite, src))
	}
	return install(exec.CommandContext(ctx, "gcc", args...), name, tmp, filepath.Join(out, name))
}

// install runs a build command that writes built, and moves built to dst
// only when the command succeeded and the result is static: a failed or
// dynamic build never lands where the cache looks.
func install(cmd *exec.Cmd, name, built, dst string) error {
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("selftests: %s did not build (%v):\n%s", name, err, tail(buf.String(), 20))
	}
	data, err := os.ReadFile(built)
	if err != nil {
		return fmt.Errorf("selftests: %s: %w", name, err)
	}
	if err := initramfs.CheckStatic(name, data); err != nil {
		return fmt.Errorf("selftests: %w (install libc6-dev)", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("selftests: %w", err)
	}
	return os.Rename(built, dst)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
