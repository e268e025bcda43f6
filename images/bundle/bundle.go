// Package bundle resolves what a benchmark program needs in the guest
// image, as initramfs tools copy an executable: the program itself, and
// for a dynamically linked one every shared library `ldd` names and the
// loader (its ELF interpreter), each at its host path so the loader finds
// them; plus the files and directories a declaration copies. Nothing is
// read into memory here: the image builder reads the files, and hashes
// them into the image's key.
package bundle

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/imagepaths"
	"github.com/kregress/kregress/internal/regularfile"
)

// File is one file of the image: Name its path in the image (absolute),
// Path on the host.
type File struct {
	Name string
	Path string
	Mode fs.FileMode
}

// Bounds of what a bundle packs: the image is unpacked into the guest's
// memory.
const (
	MaxFiles = 20000
	MaxBytes = 512 << 20
)

// Ldd lists the shared libraries of a dynamically linked program as
// `ldd` does ("name => path (addr)" lines), run in dir ("" the current
// directory: a library path relative to the working directory resolves
// from there, as the loader resolves it); a variable so that tests can
// fake the host's.
var Ldd = func(ctx context.Context, program, dir string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ldd", program)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("ldd %s: %w", program, err)
	}
	return out, nil
}

// NotFoundError is a program or library that is not on the host.
type NotFoundError struct {
	What string // "program hackbench", "library libfoo.so.1 of /usr/bin/x"
	Why  string
}

func (e *NotFoundError) Error() string { return e.What + ": " + e.Why }

// RefusedError is something a bundle will not pack, whatever the host
// has: a symbolic link or special file to copy, a loader or library
// whose path is one of the image's own (internal/imagepaths) or is not
// absolute.
type RefusedError struct {
	What string // "copy /home/me/exp/data/link", "interpreter init of /usr/bin/x"
	Why  string
}

func (e *RefusedError) Error() string { return e.What + ": " + e.Why }

// FindProgram is the host file of program: a path (relative to dir, the
// experiment file's directory) or a name looked up on PATH. It must be a
// regular, executable file.
func FindProgram(program, dir string) (string, error) {
	p := program
	if !strings.ContainsRune(program, '/') {
		found, err := exec.LookPath(program)
		if err != nil {
			return "", &NotFoundError{What: "program " + program, Why: "not found on PATH (install it, or give its path)"}
		}
		p = found
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return "", &NotFoundError{What: "program " + program, Why: err.Error()}
	case !st.Mode().IsRegular():
		return "", &NotFoundError{What: "program " + program, Why: p + " is not a regular file"}
	case st.Mode()&0o111 == 0:
		return "", &NotFoundError{What: "program " + program, Why: p + " is not executable"}
	}
	return p, nil
}

// Program is the image's files for the host program at p, put at
// guestPath: p itself, then (when it is dynamically linked) its loader
// and the libraries ldd names, each at its host path. A library ldd
// cannot resolve is a *NotFoundError naming it, and so is one found by a
// path relative to the working directory (an rpath of "./"), which the
// guest would not run it from.
func Program(ctx context.Context, p, guestPath string) ([]File, error) {
	return program(ctx, p, guestPath, "")
}

// ProgramRunIn is Program for a program the guest runs with dir as its
// working directory, and whose image carries dir's files beside it
// (a kselftest target's install: kselftest's rseq links its own
// librseq.so with -Wl,-rpath=./). ldd runs in dir, so a library named
// relative to the working directory resolves as the guest's loader will
// resolve it; such a library must be a regular file inside dir, and is
// not listed again.
func ProgramRunIn(ctx context.Context, p, dir string) ([]File, error) {
	// Absolute, since ldd runs in dir: a relative p would name
	// another file there.
	p, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return program(ctx, p, p, dir)
}

func program(ctx context.Context, p, guestPath, dir string) ([]File, error) {
	files := []File{{Name: guestPath, Path: p, Mode: 0o755}}
	interp, err := interpreter(p)
	if err != nil {
		return nil, err
	}
	if interp == "" {
		return files, nil // static, or a script (busybox's sh runs it)
	}
	if !path.IsAbs(interp) {
		// The kernel resolves it from the working directory: the host
		// file packed would be whatever is there (./init, a second
		// /init the unpacker keeps).
		return nil, &RefusedError{What: fmt.Sprintf("interpreter %q of %s", interp, p), Why: "not an absolute path (the loader would be looked up in the working directory): refused"}
	}
	out, err := Ldd(ctx, p, dir)
	if err != nil {
		return nil, err
	}
	libs, relative, err := ParseLdd(out, p)
	if err != nil {
		return nil, err
	}
	for _, r := range relative {
		if err := insideDir(dir, r); err != nil {
			return nil, &NotFoundError{What: "library " + r + " of " + p, Why: err.Error()}
		}
	}
	seen := map[string]bool{guestPath: true}
	for i, l := range append([]string{interp}, libs...) {
		if seen[l] {
			continue
		}
		seen[l] = true
		if imagepaths.Reserved(l) || l != path.Clean(l) {
			what := "library " + l + " of " + p
			if i == 0 {
				what = "interpreter " + l + " of " + p
			}
			return nil, &RefusedError{What: what, Why: "a path of the image's own (" + imagepaths.List + ") or not a clean absolute path: packing it would replace the image's file; refused"}
		}
		real, err := filepath.EvalSymlinks(l)
		if err != nil {
			return nil, &NotFoundError{What: "library " + l + " of " + p, Why: err.Error()}
		}
		files = append(files, File{Name: l, Path: real, Mode: 0o755})
	}
	return files, nil
}

// interpreter is p's ELF interpreter (its loader), "" for a static ELF
// or a file that is not ELF (a script).
func interpreter(p string) (string, error) {
	magic := make([]byte, 4)
	if fh, err := os.Open(p); err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	} else {
		n, _ := io.ReadFull(fh, magic)
		fh.Close()
		if n < 4 || string(magic) != elf.ELFMAG {
			return "", nil // a script: busybox's sh runs it
		}
	}
	f, err := elf.Open(p)
	if err != nil {
		return "", fmt.Errorf("bundle: %s: %w", p, err)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, min(prog.Filesz, 4096))
		if _, err := prog.ReadAt(b, 0); err != nil {
			return "", fmt.Errorf("bundle: %s: interpreter: %w", p, err)
		}
		return string(bytes.TrimRight(b, "\x00")), nil
	}
	return "", nil
}

// ParseLdd reads ldd's output for program: the absolute paths of its
// libraries, and apart the paths ldd found relative to its working
// directory (an rpath of "./"). A "not found" library is a
// *NotFoundError; the vDSO (no file) is skipped.
func ParseLdd(out []byte, program string) (libs, relative []string, err error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasSuffix(line, ":") {
			continue
		}
		if strings.HasPrefix(line, "ldd:") || strings.Contains(line, "not a dynamic executable") {
			// ldd could not read it (it exits non-zero, which Ldd
			// does not report when there is output): no library
			// list at all, never an empty one.
			return nil, nil, fmt.Errorf("bundle: ldd %s: %s", program, line)
		}
		name, target, arrow := strings.Cut(line, "=>")
		if !arrow {
			// "/lib64/ld-linux-x86-64.so.2 (0x...)", the vDSO
			// ("linux-vdso.so.1 (0x...)", no file), or a library
			// linked by a path ("./libx.so (0x...)").
			f := strings.Fields(line)
			switch {
			case len(f) == 0:
			case path.IsAbs(f[0]):
				libs = append(libs, f[0])
			case strings.Contains(f[0], "/"):
				relative = append(relative, f[0])
			}
			continue
		}
		name, target = strings.TrimSpace(name), strings.TrimSpace(target)
		if strings.HasPrefix(target, "not found") {
			return nil, nil, &NotFoundError{What: "library " + name + " of " + program, Why: "ldd: not found on this host (install the package that has it)"}
		}
		f := strings.Fields(target)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "("):
			// "name => (0x...)": no file.
		case path.IsAbs(f[0]):
			libs = append(libs, f[0])
		default:
			relative = append(relative, f[0])
		}
	}
	if n := len(libs) + len(relative); n > MaxFiles {
		return nil, nil, fmt.Errorf("bundle: ldd %s: %d libraries, more than %d", program, n, MaxFiles)
	}
	return libs, relative, sc.Err()
}

// insideDir: rel, a library path ldd printed relative to dir, is a
// regular file inside dir ("" no directory: the guest's working
// directory is not known, so no relative library can be resolved).
func insideDir(dir, rel string) error {
	if dir == "" {
		return fmt.Errorf("named relative to the working directory (an rpath of ./), which the guest does not run the program from: link it with an absolute rpath or $ORIGIN")
	}
	rel = filepath.Clean(filepath.FromSlash(rel))
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("resolved relative to %s but outside it: the image carries only that directory", dir)
	}
	// Every part below dir: the image carries dir's regular files, not
	// what a symbolic link in it points at.
	link, err := regularfile.SymlinkBelow(dir, filepath.ToSlash(rel))
	if err != nil {
		return err
	}
	if link != "" {
		return fmt.Errorf("%s is a symbolic link: the image carries only the regular files of %s", filepath.Join(dir, link), dir)
	}
	if st, err := os.Stat(filepath.Join(dir, rel)); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file in %s", dir)
	}
	return nil
}

// Tree is the image's files for rel (slash-separated, "." for root
// itself), a file or directory below root on the host, copied to guest
// (absolute): a file as itself, a directory's files at their relative
// paths. Only regular files and directories are packed: a symbolic
// link (at any part of rel, or anywhere in the directory) or a special
// file is a *RefusedError naming it, since a link may point anywhere on
// the host, and one left out without a word would leave the guest
// without a file the benchmark reads.
func Tree(root, rel, guest string) ([]File, error) {
	src := filepath.Join(root, filepath.FromSlash(rel))
	if rel != "." {
		link, err := regularfile.SymlinkBelow(root, rel)
		if err != nil {
			return nil, &NotFoundError{What: "copy " + src, Why: err.Error()}
		}
		if link != "" {
			return nil, &RefusedError{What: "copy " + src, Why: filepath.Join(root, filepath.FromSlash(link)) + " is a symbolic link: refused (only regular files and directories are packed)"}
		}
	}
	st, err := os.Lstat(src)
	if err != nil {
		return nil, &NotFoundError{What: "copy " + src, Why: err.Error()}
	}
	if st.Mode().IsRegular() {
		return []File{{Name: guest, Path: src, Mode: st.Mode().Perm()}}, nil
	}
	if !st.IsDir() {
		return nil, &RefusedError{What: "copy " + src, Why: "not a regular file or a directory (" + regularfile.Kind(st.Mode()) + "): refused"}
	}
	var files []File
	err = filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		if !e.Type().IsRegular() {
			return &RefusedError{What: "copy " + src, Why: p + " is " + regularfile.Kind(e.Type()) + ": refused (only regular files and directories are packed)"}
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if len(files) >= MaxFiles {
			return fmt.Errorf("more than %d files", MaxFiles)
		}
		files = append(files, File{Name: path.Join(guest, filepath.ToSlash(rel)), Path: p, Mode: info.Mode().Perm()})
		return nil
	})
	var re *RefusedError
	if errors.As(err, &re) {
		return nil, re
	}
	if err != nil {
		return nil, fmt.Errorf("bundle: copy %s: %w", src, err)
	}
	return files, nil
}

// CheckSize refuses a bundle larger than MaxBytes or MaxFiles.
func CheckSize(files []File) error {
	if len(files) > MaxFiles {
		return fmt.Errorf("bundle: %d files, more than %d", len(files), MaxFiles)
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f.Path)
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		total += st.Size()
	}
	if total > MaxBytes {
		return fmt.Errorf("bundle: %d MiB, more than %d MiB (the image is unpacked into the guest's memory)", total>>20, MaxBytes>>20)
	}
	return nil
}
