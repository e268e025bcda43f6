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
	fileRe = regexp.MustCompile(`^(?:checking|patching) file (\S+)`)
	hunkRe = regexp.MustCompile(`^Hunk #(\d+) FAILED at (\d+)`)
	noFile = regexp.MustCompile(`can't find file to patch`)
)

// ParsePatchOutput turns GNU patch's output into a PatchError naming the
// first file and hunk that failed.
func ParsePatchOutput(patch, out string) *PatchError {
	e := &PatchError{Patch: patch, Output: out}
	file := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := fileRe.FindStringSubmatch(line); m != nil {
			file = m[1]
			continue
		}
		if m := hunkRe.FindStringSubmatch(line); m != nil && e.Hunk == 0 {
			e.File = file
			fmt.Sscan(m[1], &e.Hunk)
			fmt.Sscan(m[2], &e.Line)
		}
		if noFile.MatchString(line) && e.File == "" {
			e.File = "(a file the patch names is missing from the tree)"
		}
		if strings.Contains(line, "Reversed (or previously applied) patch detected") && e.File == "" {
			e.File = file + " (already applied, or reversed)"
		}
	}
	if e.File == "" {
		e.File = file
	}
	return e
}

// applyPatch checks p with a dry run, then applies it to tree; on a
// failure nothing of p has been written.
func applyPatch(ctx context.Context, tree string, p *patches.Patch) error {
	tmp, err := os.CreateTemp("", "kregress-patch-*.patch")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(p.Data); err != nil {
		tmp.Close()
		return err
	}
	tmp.Close()
	base := []string{"-p1", "-N", "--batch", "--no-backup-if-mismatch", "-r", "-", "-d", tree, "-i", tmp.Name()}
	for _, dry := range []bool{true, false} {
		args := base
		if dry {
			args = append([]string{"--dry-run"}, base...)
		}
		out, err := exec.CommandContext(ctx, "patch", args...).CombinedOutput()
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("GNU patch not found: apt-get install patch")
		}
		if err != nil {
			return ParsePatchOutput(p.Name, string(out))
		}
	}
	return nil
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
	return os.Rename(tmp, dst)
}

// CheckApplies applies v's patches, in order, to a scratch copy of the
// files they touch in the pristine tree, and reports the first that does
// not apply. It compiles nothing and leaves every tree untouched.
func CheckApplies(ctx context.Context, pristine string, v *patches.Variant) error {
	scratch, err := os.MkdirTemp("", "kregress-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	for _, p := range v.Files {
		for _, f := range p.Files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(scratch, f)), 0o755); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(scratch, f)); err == nil {
				continue // already copied for an earlier patch
			}
			if err := restoreFile(pristine, scratch, f); err != nil {
				return err
			}
		}
		if err := applyPatch(ctx, scratch, p); err != nil {
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
