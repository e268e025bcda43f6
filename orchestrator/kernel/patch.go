package kernel

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/kregress/kregress/internal/filecopy"
	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results/verdict"
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
		i := strings.LastIndex(f, "/")
		if i < 0 {
			continue // a file at the top of the tree
		}
		// An error: a directory the patch creates; no link on the way.
		if link, err := regularfile.SymlinkBelow(tree, f[:i]); err == nil && link != "" {
			return &SymlinkError{Patch: p.Name, Path: f, Link: link}
		}
	}
	return nil
}

// SymlinkPatchError is a patch that makes a symlink, refused unless the
// request allows it: a link created by one patch is a path out of the tree
// for the next.
type SymlinkPatchError struct {
	Patch string
	Paths []string
}

func (e *SymlinkPatchError) Error() string {
	return fmt.Sprintf("patch %s makes symlinks (mode 120000: %s): refused, a symlink in the kernel tree can lead outside it; allow them explicitly (kernel.allow_symlinks) if the change needs one (nothing was applied)", e.Patch, strings.Join(e.Paths, ", "))
}

// ParserGapError is a patch git reads as touching a file kregress's
// parser did not see: what the dry run lists and the reset restores would
// differ from what git writes, so it is refused.
type ParserGapError struct {
	Patch string
	File  string
}

func (e *ParserGapError) Error() string {
	return fmt.Sprintf("patch %s: git apply would write %q, which kregress's reading of the patch does not list: refusing it (nothing was applied)", e.Patch, e.File)
}

// applyOpts is how strictly patches apply.
type applyOpts struct {
	fuzz          int  // see Request.Fuzz
	allowSymlinks bool // see Request.AllowSymlinks
}

// gitApply runs git apply in tree with args and the patch file.
func gitApply(ctx context.Context, tree, patchFile string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append(append([]string{"apply"}, args...), patchFile)...)
	cmd.Dir = tree
	// Never let git find a repository above the tree (a cache directory
	// inside someone's checkout): paths would be taken relative to it.
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(tree))
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, fmt.Errorf("git not found: apt-get install git")
	}
	return out, err
}

// gitFiles lists the paths git apply would write for the patch file, from
// `git apply --numstat -z` (which reads the patch only).
func gitFiles(ctx context.Context, tree, patchFile string) ([]string, error) {
	out, err := gitApply(ctx, tree, patchFile, "--numstat", "-z", "-p1")
	if err != nil {
		return nil, fmt.Errorf("git apply --numstat: %v: %s", err, strings.TrimSpace(string(out)))
	}
	var files []string
	recs := strings.Split(string(out), "\x00")
	for i := 0; i < len(recs); i++ {
		f := strings.SplitN(recs[i], "\t", 3)
		if len(f) != 3 {
			continue
		}
		if f[2] != "" {
			files = append(files, f[2])
			continue
		}
		// A rename or copy: "added\tdeleted\t\0old\0new\0".
		for j := 0; j < 2 && i+1 < len(recs); j++ {
			i++
			files = append(files, recs[i])
		}
	}
	return files, nil
}

// applyPatch applies p to tree with `git apply` (new, deleted and renamed
// files and mode changes, as git does). It is strict: no fuzz unless fuzz
// > 0, which lets up to fuzz lines of each hunk's leading and trailing
// context differ (git apply -C(3-fuzz)). git apply writes all of p or
// nothing. It refuses symlinks unless allowed, and a patch git reads as
// touching a file the parser did not list. It returns the hunks applied
// at an offset.
func applyPatch(ctx context.Context, tree string, p *patches.Patch, o applyOpts) ([]string, error) {
	if err := p.CheckPaths(); err != nil {
		return nil, err
	}
	if links := p.Symlinks(); len(links) > 0 && !o.allowSymlinks {
		return nil, &SymlinkPatchError{Patch: p.Name, Paths: links}
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
	files, err := gitFiles(ctx, tree, tmp.Name())
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ParseApplyOutput(p, err.Error())
	}
	listed := map[string]bool{}
	for _, f := range p.Files {
		listed[f] = true
	}
	for _, f := range files {
		if !listed[f] {
			return nil, &ParserGapError{Patch: p.Name, File: f}
		}
	}
	args := []string{"--verbose", "-p1", "--whitespace=nowarn"}
	if o.fuzz > 0 {
		args = append(args, fmt.Sprintf("-C%d", max(0, 3-o.fuzz)))
	}
	out, err := gitApply(ctx, tree, tmp.Name(), args...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if out == nil {
			return nil, err
		}
		return nil, ParseApplyOutput(p, string(out))
	}
	return Offsets(p.Name, string(out)), nil
}

// noFollowParents checks that every directory above rel in tree is a
// real directory, not a symlink: a patch may have created `evil ->
// /outside`, and removing or writing evil/secret through it would touch
// a file outside the tree. (The caller holds the workspace lock, so
// nothing else changes the tree between this check and the write.)
func noFollowParents(tree, rel string) error {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := filepath.Join(append([]string{tree}, parts[:i]...)...)
		st, err := os.Lstat(dir)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return &SymlinkError{Patch: "(workspace reset)", Path: rel, Link: strings.Join(parts[:i], "/")}
		}
	}
	return nil
}

// removeNoFollow removes tree/rel (a file, a symlink itself, or a
// directory with everything below it) without following a symlink on
// the way.
func removeNoFollow(tree, rel string) error {
	if err := noFollowParents(tree, rel); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(tree, rel))
}

// restoreFile makes tree/rel a private copy of pristine/rel (or removes it
// if the pristine tree has no such file). The copy gets a new inode, so a
// hardlinked worktree never writes through to the pristine tree, and a new
// mtime, so make rebuilds what depends on it. It never follows a symlink
// in tree: a parent that is one is an error (reset removes such links
// first, shallowest path first), and a symlink at rel is replaced, not
// written through. A pristine symlink is recreated as a symlink.
func restoreFile(pristine, tree, rel string) error {
	src := filepath.Join(pristine, rel)
	dst := filepath.Join(tree, rel)
	if err := noFollowParents(tree, rel); err != nil {
		return err
	}
	pst, err := os.Lstat(src)
	if os.IsNotExist(err) {
		if rerr := os.RemoveAll(dst); rerr != nil {
			return rerr
		}
		removeEmptyParents(pristine, tree, rel)
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp := dst + ".kregress-tmp"
	os.RemoveAll(tmp)
	switch {
	case pst.Mode().Type() == os.ModeSymlink:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := os.Symlink(target, tmp); err != nil {
			return err
		}
	case pst.IsDir():
		// A directory a patch replaced (or emptied): back to the
		// pristine one, as hardlinks like the rest of the tree.
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		return run(context.Background(), "", nil, "cp", "-al", src, dst)
	case pst.Mode().IsRegular():
		if err := filecopy.CreateNew(src, tmp, pst.Mode().Perm()); err != nil {
			return err
		}
		// Mode changes from a patch must be undone too.
		if err := os.Chmod(tmp, pst.Mode().Perm()); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: unsupported file type %v in the source", rel, pst.Mode().Type())
	}
	if st, err := os.Lstat(dst); err == nil && st.IsDir() {
		// rename(2) cannot replace a directory with a file.
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
	}
	return os.Rename(tmp, dst)
}

// removeEmptyParents removes the directories above rel that the pristine
// tree does not have and that are now empty (git apply made them for a
// file a patch added).
func removeEmptyParents(pristine, tree, rel string) {
	for d := filepath.Dir(rel); d != "." && d != "/"; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(pristine, d)); err == nil {
			return
		}
		if os.Remove(filepath.Join(tree, d)) != nil {
			return // not empty, or not there
		}
	}
}

// CheckApplies is checkApplies with strict defaults (no symlinks, no
// expectations): the e2e suite checks the embedded patch set with it.
func CheckApplies(ctx context.Context, pristine string, ps []*patches.Patch, fuzz int) error {
	return checkApplies(ctx, pristine, ps, applyOpts{fuzz: fuzz}, "", nil)
}

// checkApplies applies ps, in order, to a scratch copy of the files they
// touch in the pristine tree, and reports the first that does not apply
// (or is refused), then checks expect against the result. It compiles
// nothing and leaves every tree untouched.
func checkApplies(ctx context.Context, pristine string, ps []*patches.Patch, o applyOpts, variant string, expect []patches.Expect) error {
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
		// And in the scratch copy, where an earlier patch of the series
		// may have made a link (allowed): the refusal names this patch,
		// not the restore below that would otherwise meet the link.
		if err := checkSymlinks(scratch, p); err != nil {
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
		if _, err := applyPatch(ctx, scratch, p, o); err != nil {
			return err
		}
	}
	if !o.allowSymlinks {
		// Links git made that the parser did not see as links.
		var touched []string
		for f := range copied {
			touched = append(touched, f)
		}
		base := links(pristine, touched)
		var made []string
		for f, target := range links(scratch, touched) {
			if base[f] != target {
				made = append(made, f)
			}
		}
		if len(made) > 0 {
			sort.Strings(made)
			return &SymlinkPatchError{Patch: "series", Paths: made}
		}
	}
	for _, e := range expect {
		dir := pristine
		if copied[e.File] {
			dir = scratch
		}
		if err := checkExpect(variant, dir, e); err != nil {
			return err
		}
	}
	return nil
}

// RefusedError is a request the builder would refuse for its input,
// found without building: a patch that does not apply, a refused path or
// symlink, an expectation the patched tree does not meet. It is the
// user's to fix (a usage error), unlike an unpack or git failure.
type RefusedError struct {
	Variant string
	Err     error
}

func (e *RefusedError) Error() string { return fmt.Sprintf("variant %s: %v", e.Variant, e.Err) }
func (e *RefusedError) Unwrap() error { return e.Err }

// ExitStatus is a usage error's: the input is the user's to fix.
func (e *RefusedError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// Check runs every check Build would run on req's input that needs no
// compile: each patch applies (with req's fuzz) in order onto req's
// source, its paths stay in the tree and off symlinks, it makes no
// symlink unless allowed, and the variant's expectations hold. It unpacks
// the source once (the same cached tree Build uses) and writes only a
// scratch directory. A refusal is a *RefusedError.
func (b *Builder) Check(ctx context.Context, req Request) error {
	tree, _, err := b.Pristine(ctx, req.Source)
	if err != nil {
		return err
	}
	series := req.Patches()
	if g, ok := req.Source.(GitSource); ok {
		dirty, err := g.Uncommitted(ctx)
		if err != nil {
			return err
		}
		if dirty != nil {
			series = append([]*patches.Patch{dirty}, series...)
		}
	}
	err = checkApplies(ctx, tree, series, applyOpts{fuzz: req.Fuzz, allowSymlinks: req.AllowSymlinks}, req.Variant.Name, req.Variant.Expect)
	if err != nil && ctx.Err() == nil && refusal(err) {
		return &RefusedError{Variant: req.Variant.Name, Err: err}
	}
	return err
}

// refusal says err is about the request's input, not the machine.
func refusal(err error) bool {
	var (
		pe  *PatchError
		se  *SymlinkError
		spe *SymlinkPatchError
		ge  *ParserGapError
		ee  *ExpectError
		pa  *patches.PathError
	)
	return errors.As(err, &pe) || errors.As(err, &se) || errors.As(err, &spe) || errors.As(err, &ge) || errors.As(err, &ee) || errors.As(err, &pa)
}
