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
	"embed"
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
	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/orchestrator/procgroup"
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

// Scripts are the cgroup directory's shell selftests a gate can name. A
// script runs under bash (the image gets Debian's bash-static) with the
// helper programs it finds next to itself, and needs at least MinCPUs.
var Scripts = map[string]Script{
	// The cpuset partition tests: they offline and online CPUs and build
	// partitions out of CPUs 0-7, so they skip below 8. Under TCG they
	// take minutes (docs/gate.md).
	"test_cpuset_prs.sh": {Helpers: []string{"wait_inotify"}, MinCPUs: 8},
}

// Script is what one shell selftest needs besides itself.
type Script struct {
	Helpers []string // programs of the cgroup directory it runs from its own directory
	MinCPUs int
}

// BashStatic is where Debian's bash-static puts its binary; the image
// gets it as /bin/bash when a gate names a script.
const BashStatic = "/bin/bash-static"

// shims are the image's stand-ins for the one use each script makes of a
// tool the image cannot carry (util-linux and coreutils are dynamic).
//
//go:embed shims
var shims embed.FS

// MinCPUs is the most CPUs any of names needs (0: none asks), for the
// configuration to refuse a guest too small to run them.
func MinCPUs(names []string) (int, string) {
	most, who := 0, ""
	for _, n := range names {
		if s, ok := Scripts[n]; ok && s.MinCPUs > most {
			most, who = s.MinCPUs, n
		}
	}
	return most, who
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
	Binaries []Binary // in GuestDir: the tests and the helpers scripts run
	// Support are files a script needs elsewhere in the image: Name is
	// the absolute path in the guest (/bin/bash).
	Support []Binary
}

// Files are the suite's files as image files: the binaries in GuestDir,
// the support files where the scripts look for them.
func (s *Suite) Files() []initramfs.File {
	var files []initramfs.File
	for _, bin := range s.Binaries {
		files = append(files, initramfs.File{Name: strings.TrimPrefix(GuestDir, "/") + "/" + bin.Name, Path: bin.Path})
	}
	for _, f := range s.Support {
		files = append(files, initramfs.File{Name: strings.TrimPrefix(f.Name, "/"), Path: f.Path})
	}
	return files
}

// Builder builds selftests into CacheDir/selftests/<key>/.
type Builder struct {
	CacheDir string
	Progress progress.Reporter
	// Bash is the static bash the scripts run under ("": BashStatic).
	Bash string
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

// InTree splits names into the gate tests tree has (C tests, scripts and
// the mm programs whose sources are there) and those it lacks, each in
// names' order: a list written for one kernel version names tests another
// does not have (6.1 has no test_cpuset, test_hugetlb_memcg, test_pids,
// test_zswap).
func InTree(tree string, names []string) (have, missing []string, err error) {
	avail, err := Available(tree)
	if err != nil {
		return nil, nil, fmt.Errorf("selftests: %w", err)
	}
	for _, n := range names {
		ok := slices.Contains(avail, n)
		if srcs, mm := MMPrograms[n]; mm {
			ok = true
			for _, src := range srcs {
				if _, err := os.Stat(filepath.Join(tree, MMDir, src)); err != nil {
					ok = false
				}
			}
		} else if _, script := Scripts[n]; script {
			_, serr := os.Stat(filepath.Join(tree, SuiteDir, n))
			ok = serr == nil
		}
		if ok {
			have = append(have, n)
		} else {
			missing = append(missing, n)
		}
	}
	return have, missing, nil
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
		if _, script := Scripts[n]; script {
			if _, err := os.Stat(filepath.Join(tree, SuiteDir, n)); err != nil {
				return nil, fmt.Errorf("selftests: %s: not in this tree (%w)", n, err)
			}
			continue
		}
		if !nameRE.MatchString(n) || !slices.Contains(avail, n) {
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
	var files []string
	for _, n := range names {
		files = append(files, n)
		if s, ok := Scripts[n]; ok {
			files = append(files, s.Helpers...)
		}
	}
	for _, n := range files {
		if slices.ContainsFunc(suite.Binaries, func(b Binary) bool { return b.Name == n }) {
			continue // a helper two scripts share
		}
		path := filepath.Join(dir, n)
		if _, err := os.Stat(path); err != nil {
			b.Progress.Printf("selftests: building %s (static)", n)
			build := b.make
			if _, mm := MMPrograms[n]; mm {
				build = b.compileMM
			} else if _, script := Scripts[n]; script {
				build = copyScript
			}
			if err := build(ctx, tree, dir, n); err != nil {
				return nil, err
			}
		}
		suite.Binaries = append(suite.Binaries, Binary{Name: n, Path: path})
	}
	if slices.ContainsFunc(names, func(n string) bool { _, ok := Scripts[n]; return ok }) {
		bash := b.Bash
		if bash == "" {
			bash = BashStatic
		}
		support, err := scriptSupport(dir, bash)
		if err != nil {
			return nil, err
		}
		suite.Support = support
	}
	return suite, nil
}

// maxScript bounds a shell selftest read from the tree: the cgroup
// suite's are a few KiB.
const maxScript = 1 << 20

// copyScript puts a shell selftest into the cache as it is in the tree
// (a regular file: regularfile.ReadBelow).
func copyScript(_ context.Context, tree, out, name string) error {
	data, err := regularfile.ReadBelow(tree, SuiteDir+"/"+name, maxScript)
	if err != nil {
		return fmt.Errorf("selftests: %w", err)
	}
	tmp := filepath.Join(out, name+".tmp")
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		return fmt.Errorf("selftests: %w", err)
	}
	return os.Rename(tmp, filepath.Join(out, name))
}

// scriptSupport returns bash and the shims, the shims written into dir.
func scriptSupport(dir, bash string) ([]Binary, error) {
	if _, err := os.Stat(bash); err != nil {
		return nil, fmt.Errorf("selftests: the shell selftests need a static bash: %w (install the Debian package bash-static)", err)
	}
	support := []Binary{{Name: "/bin/bash", Path: bash}}
	entries, err := shims.ReadDir("shims")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := shims.ReadFile("shims/" + e.Name())
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "shim-"+e.Name())
		if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, data) {
			if err := os.WriteFile(path, data, 0o755); err != nil {
				return nil, fmt.Errorf("selftests: %w", err)
			}
		}
		support = append(support, Binary{Name: "/bin/" + e.Name(), Path: path})
	}
	return support, nil
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
	procgroup.Set(cmd) // cancel kills make's compilers too
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
