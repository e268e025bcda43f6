package selftests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kregress/kregress/images/bundle"
	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/orchestrator/procgroup"
	"github.com/kregress/kregress/results/verdict"
)

// KselftestDir is kselftest's directory inside a kernel tree; its
// Makefile lists the targets (TARGETS += name).
const KselftestDir = "tools/testing/selftests"

// TargetsGuestDir is where the installed kselftest targets live in the
// image, laid out as kselftest's own install lays them out (one directory
// per target). A test of a target is named as kselftest-list.txt names it,
// "collection:program" (sched:cs_prctl_test), and runs from its
// collection's directory, as run_kselftest.sh runs it.
const TargetsGuestDir = "/usr/lib/kselftest/targets"

// targetsVersion changes when the way targets are built changes, so
// cached installs from an older kregress are not reused.
const targetsVersion = "kregress-targets/1 make install LDFLAGS=-static"

var (
	targetsLine = regexp.MustCompile(`^TARGETS\s*\+?=\s*([A-Za-z0-9_./-]+)\s*$`)
	// targetName is what a target may be called: the Makefile's names,
	// nested ones included (filesystems/binderfs), never a way out.
	targetName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$`)
)

// maxMakefile bounds a kselftest Makefile read from a tree: the real
// ones are a few KiB, and a hostile tree's may be a link to /dev/zero
// or a file of gigabytes.
const maxMakefile = 1 << 20

// Targets lists the kselftest targets tree has: those its selftests
// Makefile adds to TARGETS, in the Makefile's order, then the other
// directories kselftest's build can build (a Makefile including lib.mk).
// Each Makefile is read through regularfile.ReadBelow (no symbolic
// link, a regular file within maxMakefile), and the scan stops when ctx
// ends.
func Targets(ctx context.Context, tree string) ([]string, error) {
	top := KselftestDir + "/Makefile"
	mk, err := regularfile.ReadBelow(tree, top, maxMakefile)
	if err != nil {
		return nil, treeFileError(err)
	}
	var out []string
	for _, line := range strings.Split(string(mk), "\n") {
		m := targetsLine.FindStringSubmatch(strings.TrimSpace(line))
		if m != nil && targetName.MatchString(m[1]) && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	// kselftest builds any directory whose Makefile includes lib.mk
	// (make TARGETS=sched), listed in TARGETS or not: 6.12 lists
	// neither sched nor locking.
	entries, err := os.ReadDir(filepath.Join(tree, KselftestDir))
	if err != nil {
		return nil, fmt.Errorf("selftests: the tree's kselftest targets: %w", err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("selftests: the tree's kselftest targets: %w", err)
		}
		if !e.IsDir() || slices.Contains(out, e.Name()) || !targetName.MatchString(e.Name()) {
			continue
		}
		mk, err := regularfile.ReadBelow(tree, KselftestDir+"/"+e.Name()+"/Makefile", maxMakefile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, treeFileError(err)
		}
		if bytes.Contains(mk, []byte("lib.mk")) {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("selftests: %s lists no TARGETS", filepath.Join(tree, KselftestDir, "Makefile"))
	}
	return out, nil
}

// TreeFileError is a file of the tree's kselftest that is refused as
// the tree's files are (a symbolic link, not a regular file, too large:
// regularfile.ReadBelow): the tree must change, kregress exits 2.
type TreeFileError struct{ Err error }

func (e *TreeFileError) Error() string {
	return "selftests: the tree's kselftest targets: " + e.Err.Error()
}
func (e *TreeFileError) Unwrap() error            { return e.Err }
func (e *TreeFileError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// treeFileError is err as a *TreeFileError when the tree's file was
// refused, else wrapped as a failure of the host.
func treeFileError(err error) error {
	var sl *regularfile.SymlinkError
	var nr *regularfile.NotRegularError
	var tl *regularfile.TooLargeError
	if errors.As(err, &sl) || errors.As(err, &nr) || errors.As(err, &tl) {
		return &TreeFileError{Err: err}
	}
	return fmt.Errorf("selftests: the tree's kselftest targets: %w", err)
}

// UnknownTargetsError is a gate naming kselftest targets the tree does
// not have.
type UnknownTargetsError struct {
	Unknown []string
	Have    []string // every target of the tree
}

func (e *UnknownTargetsError) Error() string {
	return fmt.Sprintf("selftests.targets: %s: not a kselftest target of this tree (it has: %s)",
		strings.Join(e.Unknown, ", "), strings.Join(e.Have, " "))
}

// ExitStatus: the user named them; kregress exits 2.
func (e *UnknownTargetsError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// CheckTargets refuses names that are not targets of tree, with the list
// of those it has (*UnknownTargetsError).
func CheckTargets(ctx context.Context, tree string, names []string) error {
	have, err := Targets(ctx, tree)
	if err != nil {
		return err
	}
	var unknown []string
	for _, n := range names {
		if !slices.Contains(have, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return &UnknownTargetsError{Unknown: unknown, Have: have}
	}
	return nil
}

// Target is one installed kselftest target.
type Target struct {
	Name string
	// Tests are its tests as the guest names them (collection:program),
	// in kselftest-list.txt's order.
	Tests []string
	// Files are the installed files: Name relative to TargetsGuestDir.
	Files []Binary
	// Scripts: some test is a shell script (it needs bash in the image).
	Scripts bool
	// Dynamic says why some of its programs are dynamically linked (""
	// when all are static): the static link failed, or the target's
	// Makefile does not take LDFLAGS.
	Dynamic string
	// Libraries are the loader and shared libraries its dynamic programs
	// need, at their host paths in the image, resolved as a benchmark
	// program's are (images/bundle).
	Libraries []bundle.File
}

// BuildTargets builds and installs the named kselftest targets of tree
// with kselftest's own build (make -C tools/testing/selftests TARGETS=...
// install), cached per target under CacheDir/selftests/target-<key>/.
// Nothing is written inside tree: the kernel headers and make's output go
// into the cache. Each target is linked static where it allows; a target
// whose static link fails is built again without -static, and the loader
// and shared libraries of its dynamic programs go into the image beside
// them (Target.Dynamic says why). A target that does not build either
// way, or a library that does not resolve on the host, is an error that
// names it.
func (b *Builder) BuildTargets(ctx context.Context, tree, sourceID, compiler string, names []string) ([]Target, error) {
	if len(names) == 0 {
		return nil, nil
	}
	if err := CheckTargets(ctx, tree, names); err != nil {
		return nil, err
	}
	hdr, err := b.headers(ctx, tree, sourceID)
	if err != nil {
		return nil, err
	}
	var out []Target
	for _, n := range names {
		t, err := b.buildTarget(ctx, tree, sourceID, compiler, hdr, n)
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, nil
}

// headers installs tree's UAPI headers (make headers) into the cache once
// per source: kselftest includes them, and the pristine tree has none.
func (b *Builder) headers(ctx context.Context, tree, sourceID string) (string, error) {
	h := sha256.Sum256([]byte(targetsVersion + "\x00headers\x00" + sourceID))
	dir := filepath.Join(b.CacheDir, "selftests", "headers-"+hex.EncodeToString(h[:])[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("selftests: %w", err)
	}
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", fmt.Errorf("selftests: %w", err)
	}
	defer unlock()
	include := filepath.Join(dir, "usr", "include")
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return include, nil
	}
	b.Progress.Printf("selftests: installing the tree's UAPI headers for kselftest")
	cmd := exec.CommandContext(ctx, "make", "-s", "-C", tree, "O="+dir, "headers")
	if err := runLogged(cmd, "the kernel headers"); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
		return "", fmt.Errorf("selftests: %w", err)
	}
	return include, nil
}

// buildTarget builds, installs and lists one target, or returns the
// cached install.
func (b *Builder) buildTarget(ctx context.Context, tree, sourceID, compiler, hdr, name string) (*Target, error) {
	h := sha256.Sum256([]byte(targetsVersion + "\x00" + sourceID + "\x00" + compiler + "\x00" + name))
	dir := filepath.Join(b.CacheDir, "selftests", "target-"+hex.EncodeToString(h[:])[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("selftests: %w", err)
	}
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, fmt.Errorf("selftests: %w", err)
	}
	defer unlock()
	install := filepath.Join(dir, "install")
	// why is the reason a built install is dynamic, kept beside it so a
	// cached install reports it as the first build did.
	whyFile := filepath.Join(dir, "dynamic")
	if _, err := os.Stat(filepath.Join(install, "kselftest-list.txt")); err != nil {
		if err := os.Remove(whyFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("selftests: %w", err)
		}
		b.Progress.Printf("selftests: building kselftest target %s (make install, static)", name)
		tmp := filepath.Join(dir, "install.tmp")
		// LDFLAGS from the environment, not the command line: the
		// targets' Makefiles add to it (LDFLAGS += ...), and a command
		// line value would replace what they add.
		out, err := b.makeInstall(ctx, tree, dir, hdr, name, "LDFLAGS=-static")
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("selftests: kselftest target %s: %w", name, ctx.Err())
			}
			why := "static link failed: " + linkFailure(out)
			b.Progress.Printf("selftests: kselftest target %s: %s; building it dynamic, its libraries copied into the image", name, why)
			if out, err := b.makeInstall(ctx, tree, dir, hdr, name); err != nil {
				return nil, fmt.Errorf("selftests: kselftest target %s did not build, static (%s) or dynamic (%v):\n%s", name, why, err, tail(out, 20))
			}
			if err := os.WriteFile(whyFile, []byte(why), 0o644); err != nil {
				return nil, fmt.Errorf("selftests: %w", err)
			}
		}
		if err := os.RemoveAll(install); err != nil {
			return nil, fmt.Errorf("selftests: %w", err)
		}
		if err := os.Rename(tmp, install); err != nil {
			return nil, fmt.Errorf("selftests: %w", err)
		}
	}
	why, err := os.ReadFile(whyFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("selftests: %w", err)
	}
	return readInstall(ctx, install, name, string(why))
}

// makeInstall runs kselftest's install of target name into dir's
// install.tmp (make's output in dir's out, both emptied first), with env
// added to the environment; its output is returned for the error.
func (b *Builder) makeInstall(ctx context.Context, tree, dir, hdr, name string, env ...string) (string, error) {
	tmp := filepath.Join(dir, "install.tmp")
	for _, d := range []string{tmp, filepath.Join(dir, "out")} {
		if err := os.RemoveAll(d); err != nil {
			return "", fmt.Errorf("selftests: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, "make", "-s", "-C", filepath.Join(tree, KselftestDir),
		"TARGETS="+name, "O="+filepath.Join(dir, "out"), "KSFT_INSTALL_PATH="+tmp,
		"KHDR_INCLUDES=-isystem "+hdr, "install")
	cmd.Env = append(os.Environ(), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	procgroup.Set(cmd)
	err := cmd.Run()
	return buf.String(), err
}

// linkLine is a line of a failed build that says why: the linker's or
// the compiler's complaint.
var linkLine = regexp.MustCompile(`multiple definition|cannot find -l|undefined reference|error:|Error \d`)

// linkFailure is the first line of a failed build's output that says why
// it failed (or its last line), bounded for a log line.
func linkFailure(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	pick := lines[len(lines)-1]
	for i, l := range lines {
		if linkLine.MatchString(l) {
			pick = l
			// ld names the object on a line of its own before the
			// complaint ("libc.a(x.o): in function `f':").
			if i > 0 && strings.HasSuffix(strings.TrimSpace(lines[i-1]), ":") {
				pick = strings.TrimSpace(lines[i-1]) + " " + strings.TrimSpace(l)
			}
			break
		}
	}
	pick = strings.TrimSpace(pick)
	if len(pick) > 300 {
		pick = pick[:300] + "..."
	}
	if pick == "" {
		return "no output"
	}
	return pick
}

// readInstall lists target name's tests (its lines of the install's
// kselftest-list.txt) and files, and resolves the loader and libraries
// of its dynamically linked programs; why is the reason the build was
// dynamic ("" when it linked static).
func readInstall(ctx context.Context, install, name, why string) (*Target, error) {
	// The tree's make wrote the install: its list is read as the tree's
	// files are.
	list, err := regularfile.ReadBelow(install, "kselftest-list.txt", maxMakefile)
	if err != nil {
		return nil, fmt.Errorf("selftests: target %s: %w", name, err)
	}
	t := &Target{Name: name}
	for _, line := range strings.Split(string(list), "\n") {
		coll, prog, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || (coll != name && !strings.HasPrefix(coll, name+"/")) {
			continue
		}
		if !targetName.MatchString(coll) || !targetName.MatchString(prog) || strings.Contains(prog, "/") {
			return nil, fmt.Errorf("selftests: target %s: kselftest-list.txt line %q is not collection:program", name, line)
		}
		t.Tests = append(t.Tests, coll+":"+prog)
		if isScript(filepath.Join(install, coll, prog)) {
			t.Scripts = true
		}
	}
	var dynamic []string
	root := filepath.Join(install, name)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(install, path)
		if err != nil {
			return err
		}
		if isDynamicELF(path) {
			dynamic = append(dynamic, rel)
		}
		t.Files = append(t.Files, Binary{Name: rel, Path: path})
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("selftests: target %s: %w", name, err)
	}
	if len(dynamic) > 0 {
		if why == "" {
			why = fmt.Sprintf("its Makefile does not take LDFLAGS=-static for %s", strings.Join(dynamic, ", "))
		}
		t.Dynamic = why
		seen := map[string]bool{}
		for _, rel := range dynamic {
			host := filepath.Join(install, rel)
			// Run from its own directory, as the guest runs it.
			files, err := bundle.ProgramRunIn(ctx, host, filepath.Dir(host))
			if err != nil {
				return nil, fmt.Errorf("selftests: target %s: program %s: %w", name, rel, err)
			}
			for _, f := range files[1:] { // [0] is the program itself
				if !seen[f.Name] {
					seen[f.Name] = true
					t.Libraries = append(t.Libraries, f)
				}
			}
		}
	}
	if len(t.Tests) == 0 {
		return nil, fmt.Errorf("selftests: target %s installed no test (kselftest-list.txt names none of it)", name)
	}
	return t, nil
}

// isDynamicELF: an ELF file with an interpreter (a dynamic loader).
func isDynamicELF(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

// isScript: the file starts with #!.
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return n == 2 && bytes.Equal(head, []byte("#!"))
}

// runLogged runs a build command in its own process group, its output
// kept for the error.
func runLogged(cmd *exec.Cmd, what string) error {
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	procgroup.Set(cmd)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("selftests: %s did not build (%v):\n%s", what, err, tail(buf.String(), 20))
	}
	return nil
}

// TargetFiles are targets' files as image files, with the loader and
// libraries of their dynamic programs, and the shell the scripts among
// them run under (bash as /bin/bash) when any is a script.
func (b *Builder) TargetFiles(targets []Target) ([]initramfs.File, error) {
	var files []initramfs.File
	scripts := false
	libs := map[string]bool{}
	for _, t := range targets {
		for _, f := range t.Files {
			file := initramfs.File{Name: strings.TrimPrefix(TargetsGuestDir, "/") + "/" + filepath.ToSlash(f.Name), Path: f.Path}
			if t.Dynamic != "" && isDynamicELF(f.Path) {
				// Packed: the image builder takes it dynamic, its
				// libraries being in the image too.
				file.Packed, file.Mode = true, 0o755
			}
			files = append(files, file)
		}
		// Libraries keep their absolute host names, as a benchmark's
		// do, so the two share one copy in the image.
		for _, l := range t.Libraries {
			if !libs[l.Name] {
				libs[l.Name] = true
				files = append(files, initramfs.File{Name: l.Name, Path: l.Path, Packed: true, Mode: l.Mode})
			}
		}
		scripts = scripts || t.Scripts
	}
	if scripts {
		bash := b.Bash
		if bash == "" {
			bash = BashStatic
		}
		if _, err := os.Stat(bash); err != nil {
			return nil, fmt.Errorf("selftests: the targets' shell tests need a static bash: %w (install the Debian package bash-static)", err)
		}
		files = append(files, initramfs.File{Name: "bin/bash", Path: bash})
	}
	return files, nil
}

// targetConfigFiles are the fragments kselftest's own kselftest-merge
// reads from a target's directory for an x86_64 kernel (config, then
// config.$(UTS_MACHINE)), the only architecture kregress builds.
var targetConfigFiles = []string{"config", "config.x86_64"}

// TargetConfig is a kselftest target's own kernel config fragment: the
// options its tests need.
type TargetConfig struct {
	Target string
	// File is its path in the tree (tools/testing/selftests/mqueue/config).
	File string
	Data []byte
}

// TargetConfigs reads the config fragments of the named targets of tree,
// in the order named (a target without one has none). Each is read
// through regularfile.ReadBelow: a regular file with no symbolic link on
// the way, of at most limit bytes (a larger one is refused naming it);
// its lines are the caller's to check.
func TargetConfigs(ctx context.Context, tree string, names []string, limit int64) ([]TargetConfig, error) {
	if err := CheckTargets(ctx, tree, names); err != nil {
		return nil, err
	}
	var out []TargetConfig
	for i, name := range names {
		if slices.Contains(names[:i], name) {
			continue
		}
		for _, base := range targetConfigFiles {
			rel := KselftestDir + "/" + name + "/" + base
			data, err := regularfile.ReadBelow(tree, rel, limit)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("selftests: kselftest target %s: %s: %w", name, rel, err)
			}
			out = append(out, TargetConfig{Target: name, File: rel, Data: data})
		}
	}
	return out, nil
}
