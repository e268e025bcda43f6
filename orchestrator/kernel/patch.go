package kernel

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kregress/kregress/patches"
)

// PatchError names the patch, file and hunk that did not apply.
type PatchError struct {
	Patch  string
	File   string
	Hunk   int
	Line   int
	Output string
}

func (e *PatchError) Error() string {
	where := ""
	if e.File != "" {
		where = " to " + e.File
	}
	if e.Hunk > 0 {
		where += fmt.Sprintf(" (hunk #%d at line %d)", e.Hunk, e.Line)
	}
	return fmt.Sprintf("patch %s does not apply%s:\n%s", e.Patch, where, strings.TrimSpace(e.Output))
}

var (
	checkingRe = regexp.MustCompile(`^Checking patch (.+)\.\.\.$`)
	failedRe   = regexp.MustCompile(`^error: patch failed: (.+):(\d+)$`)
	fileErrRe  = regexp.MustCompile(`^error: (.+?): (No such file or directory|does not exist in index|already exists in working directory|patch does not apply|wrong type|does not match index)$`)
	offsetRe   = regexp.MustCompile(`^Hunk #(\d+) succeeded at (\d+)(?: \(offset (-?\d+) lines?\))?\.$`)
)

// ParseApplyOutput turns `git apply --verbose` output into a PatchError
// naming the first file and hunk that failed. git reports a failed hunk by
// its old start line; p's parsed hunks turn that into the hunk's number.
func ParseApplyOutput(p *patches.Patch, out string) *PatchError {
	e := &PatchError{Patch: p.Name, Output: out}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := failedRe.FindStringSubmatch(line); m != nil && e.File == "" {
			e.File = m[1]
			fmt.Sscan(m[2], &e.Line)
			if h := p.FindHunk(e.File, e.Line); h != nil {
				e.Hunk = h.Number
			}
			continue
		}
		if m := fileErrRe.FindStringSubmatch(line); m != nil && e.File == "" {
			e.File = m[1] + " (" + m[2] + ")"
		}
	}
	return e
}

// Offsets lists the hunks git applied away from the line their header
// names (`git apply --verbose`: "Hunk #2 succeeded at 340 (offset 4
// lines)."), one line each, for the build log and provenance.
func Offsets(patch, out string) []string {
	var notes []string
	file := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := checkingRe.FindStringSubmatch(line); m != nil {
			file = m[1]
			continue
		}
		if m := offsetRe.FindStringSubmatch(line); m != nil {
			notes = append(notes, fmt.Sprintf("%s: %s hunk #%s applied at line %s (offset %s lines)", patch, file, m[1], m[2], m[3]))
		}
	}
	return notes
}

// SymlinkError is a patch path that goes through a symlink in the tree.
type SymlinkError struct {
	Patch, Path, Link string
}

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("patch %s: refusing path %q: it goes through the symlink %s in the tree (nothing was applied)", e.Patch, e.Path, e.Link)
}

// checkSymlinks refuses a patch whose paths pass through a symlinked
// directory of tree, which could lead outside it.
func checkSymlinks(tree string, p *patches.Patch) error {
	for _, f := range p.Files {
		parts := strings.Split(f, "/")
		for i := 1; i < len(parts); i++ {
			dir := filepath.Join(append([]string{tree}, parts[:i]...)...)
			st, err := os.Lstat(dir)
			if err != nil {
				break // does not exist yet: the patch creates it
			}
			if st.Mode()&os.ModeSymlink != 0 {
				return &SymlinkError{Patch: p.Name, Path: f, Link: strings.Join(parts[:i], "/")}
			}
		}
	}
	return nil
}

// applyPatch applies p to tree with `git apply` (new, deleted and renamed
// files and mode changes, as git does). It is strict: no fuzz unless fuzz
// > 0, which lets up to fuzz lines of each hunk's leading and trailing
// context differ (git apply -C(3-fuzz)). git apply writes all of p or
// nothing. It returns the hunks applied at an offset.
func applyPatch(ctx context.Context, tree string, p *patches.Patch, fuzz int) ([]string, error) {
	if err := p.CheckPaths(); err != nil {
		return nil, err
	}
	if err := checkSymlinks(tree, p); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp("", "kregress-patch-*.patch")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(p.Data); err != nil {
		tmp.Close()
		return nil, err
	}
	tmp.Close()
	args := []string{"apply", "--verbose", "-p1", "--whitespace=nowarn"}
	if fuzz > 0 {
		args = append(args, fmt.Sprintf("-C%d", max(0, 3-fuzz)))
	}
	args = append(args, tmp.Name())
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = tree
	// Never let git find a repository above the tree (a cache directory
	// inside someone's checkout): paths would be taken relative to it.
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(tree))
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, fmt.Errorf("git not found: apt-get install git")
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ParseApplyOutput(p, string(out))
	}
	return Offsets(p.Name, string(out)), nil
}

// restoreFile makes tree/rel a private copy of pristine/rel (or removes it
// if the pristine tree has no such file). The copy gets a new inode, so a
// hardlinked worktree never writes through to the pristine tree, and a new
// mtime, so make rebuilds what depends on it.
func restoreFile(pristine, tree, rel string) error {
	src := filepath.Join(pristine, rel)
	dst := filepath.Join(tree, rel)
	in, err := os.Open(src)
	if os.IsNotExist(err) {
		if rerr := os.Remove(dst); rerr != nil && !os.IsNotExist(rerr) {
			return rerr
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp := dst + ".kregress-tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	// Mode changes from a patch must be undone too.
	if err := os.Chmod(tmp, st.Mode().Perm()); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// CheckApplies applies ps, in order, to a scratch copy of the files they
// touch in the pristine tree, and reports the first that does not apply.
// It compiles nothing and leaves every tree untouched.
func CheckApplies(ctx context.Context, pristine string, ps []*patches.Patch, fuzz int) error {
	scratch, err := os.MkdirTemp("", "kregress-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	copied := map[string]bool{}
	for _, p := range ps {
		if err := p.CheckPaths(); err != nil {
			return err
		}
		if err := checkSymlinks(pristine, p); err != nil {
			return err
		}
		for _, f := range p.Files {
			if copied[f] {
				continue // as an earlier patch left it
			}
			copied[f] = true
			if err := restoreFile(pristine, scratch, f); err != nil {
				return err
			}
		}
		if _, err := applyPatch(ctx, scratch, p, fuzz); err != nil {
			return err
		}
	}
	return nil
}

// Pristine returns the unpacked pristine tree of src, unpacking it once,
// and src's identity (computing it hashes a whole tarball: callers reuse it).
func (b *Builder) Pristine(ctx context.Context, src Source) (tree, sourceID string, err error) {
	id, err := src.Identity(ctx)
	if err != nil {
		return "", "", err
	}
	tree, err = b.pristine(ctx, src, hash16([]byte(id)))
	return tree, id, err
}
