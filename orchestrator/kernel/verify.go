package kernel

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// TreeMismatchError says a workspace tree is not what its source and
// patches make it: the paths that differ (at most a few named).
type TreeMismatchError struct {
	Tree  string
	State string // "the base" or "the base + patches"
	Diffs []string
}

func (e *TreeMismatchError) Error() string {
	shown := e.Diffs
	if len(shown) > 8 {
		shown = append(shown[:8:8], fmt.Sprintf("... %d more", len(e.Diffs)-8))
	}
	return fmt.Sprintf("kernel worktree %s is not %s after switching (%s): refusing to build from it", e.Tree, e.State, strings.Join(shown, "; "))
}

// treeDiff is one path where a tarball workspace differs from its
// pristine tree: extra (not in pristine), missing, or changed.
type treeDiff struct {
	rel, why string
	extra    bool
}

// compareTree proves tree equals pristine except at the exempt paths (the
// files the applied patches touched, and directories only they need).
// Tree is a hardlinked copy (cp -al) of pristine, so a file still sharing
// its pristine inode is equal without reading it; only files restoreFile
// or git apply rewrote are compared byte for byte. One walk of the tree
// finds extra and changed entries; missing ones are found by counting
// the pristine entries seen against pristine's total (walked once and
// cached, pristine never changes), and only named by a second walk when
// the count says something is missing.
func compareTree(pristine, tree string, exempt map[string]bool) ([]treeDiff, error) {
	exemptDirs := map[string]bool{}
	for f := range exempt {
		for d := filepath.Dir(f); d != "." && d != "/"; d = filepath.Dir(d) {
			exemptDirs[d] = true
		}
	}
	var diffs []treeDiff
	seen := 0
	err := filepath.WalkDir(tree, func(path string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tree, path)
		if rel == "." {
			return nil
		}
		if exempt[rel] {
			if de.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		ti, err := de.Info()
		if err != nil {
			return err
		}
		pi, err := os.Lstat(filepath.Join(pristine, rel))
		if err != nil {
			if os.IsNotExist(err) && de.IsDir() && exemptDirs[rel] {
				return nil // made by git apply for a new file a patch adds
			}
			if os.IsNotExist(err) {
				diffs = append(diffs, treeDiff{rel: rel, why: "not in the source", extra: true})
				if de.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			return err
		}
		seen++
		if why := sameEntry(filepath.Join(pristine, rel), path, pi, ti); why != "" {
			diffs = append(diffs, treeDiff{rel: rel, why: why, extra: ti.Mode().Type() != pi.Mode().Type()})
			if de.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("kernel worktree: compare %s with %s: %w", tree, pristine, err)
	}
	total, err := pristineEntries(pristine)
	if err != nil {
		return nil, err
	}
	for f := range exempt {
		if _, err := os.Lstat(filepath.Join(pristine, f)); err == nil {
			seen++
		}
	}
	if seen < total {
		// Something is missing (or was skipped below a changed entry):
		// name it.
		filepath.WalkDir(pristine, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(pristine, path)
			if rel == "." || exempt[rel] {
				return nil
			}
			if _, err := os.Lstat(filepath.Join(tree, rel)); os.IsNotExist(err) {
				diffs = append(diffs, treeDiff{rel: rel, why: "missing"})
				if de.IsDir() {
					return fs.SkipDir
				}
			}
			return nil
		})
	}
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].rel < diffs[j].rel })
	return diffs, nil
}

// sameEntry says why two entries differ ("" when they do not): type,
// permissions, symlink target, or bytes.
func sameEntry(pPath, tPath string, pi, ti os.FileInfo) string {
	if pi.Mode().Type() != ti.Mode().Type() {
		return fmt.Sprintf("type %v, source has %v", ti.Mode().Type(), pi.Mode().Type())
	}
	switch {
	case ti.Mode().IsRegular():
		if os.SameFile(pi, ti) {
			return "" // the hardlink cp -al made: the very same bytes
		}
		if pi.Mode().Perm() != ti.Mode().Perm() {
			return fmt.Sprintf("mode %o, source has %o", ti.Mode().Perm(), pi.Mode().Perm())
		}
		if pi.Size() != ti.Size() {
			return fmt.Sprintf("%d bytes, source has %d", ti.Size(), pi.Size())
		}
		if eq, err := sameBytes(pPath, tPath); err != nil || !eq {
			return "content differs"
		}
	case ti.Mode().Type() == fs.ModeSymlink:
		a, _ := os.Readlink(pPath)
		b, _ := os.Readlink(tPath)
		if a != b {
			return fmt.Sprintf("symlink to %q, source has %q", b, a)
		}
	}
	return ""
}

func sameBytes(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == io.EOF || eb == io.ErrUnexpectedEOF, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}

// pristineEntries counts the entries under pristine (not itself), once:
// the count is kept next to it, as pristine never changes.
func pristineEntries(pristine string) (int, error) {
	cache := pristine + ".entries"
	if data, err := os.ReadFile(cache); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			return n, nil
		}
	}
	n := -1 // the root
	if err := filepath.WalkDir(pristine, func(_ string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		return nil
	}); err != nil {
		return 0, fmt.Errorf("kernel source: count %s: %w", pristine, err)
	}
	os.WriteFile(cache, []byte(strconv.Itoa(n)+"\n"), 0o644)
	return n, nil
}

// verifyBase proves the tree equals its base after a reset, repairing
// what differs once (extra entries removed without following links,
// changed or missing ones restored with a new mtime so make rebuilds
// what they feed): whatever a parser gap or a crash left behind never
// reaches a build of the baseline.
func (w *workspace) verifyBase(ctx context.Context) error {
	if w.git != nil {
		return w.verifyGit(ctx, nil, "the base")
	}
	for round := 0; ; round++ {
		diffs, err := compareTree(w.pristine, w.tree(), nil)
		if err != nil {
			return err
		}
		if len(diffs) == 0 {
			return nil
		}
		if round == 1 {
			return mismatch(w.tree(), "the base", diffs)
		}
		// Extras first, shallowest first: removing an extra symlinked
		// directory before anything below it is looked at.
		for _, d := range diffs {
			if d.extra {
				if err := removeNoFollow(w.tree(), d.rel); err != nil {
					return fmt.Errorf("kernel worktree: remove %s: %w", d.rel, err)
				}
			}
		}
		for _, d := range diffs {
			if err := restoreFile(w.pristine, w.tree(), d.rel); err != nil {
				return fmt.Errorf("kernel worktree: restore %s: %w", d.rel, err)
			}
		}
	}
}

// verifyPatched proves that applying the patches changed nothing but
// the paths recorded as touched (which the next reset restores).
func (w *workspace) verifyPatched(ctx context.Context, touched []string) error {
	exempt := map[string]bool{}
	for _, f := range touched {
		exempt[f] = true
	}
	if w.git != nil {
		return w.verifyGit(ctx, exempt, "the base + patches")
	}
	diffs, err := compareTree(w.pristine, w.tree(), exempt)
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		return mismatch(w.tree(), "the base + patches (files changed that no patch names)", diffs)
	}
	return nil
}

func mismatch(tree, state string, diffs []treeDiff) error {
	e := &TreeMismatchError{Tree: tree, State: state}
	for _, d := range diffs {
		e.Diffs = append(e.Diffs, d.rel+": "+d.why)
	}
	return e
}

// verifyGit proves a git workspace is at its commit with nothing else
// (or nothing but exempt paths): HEAD, and `git status` over tracked,
// untracked and ignored files.
func (w *workspace) verifyGit(ctx context.Context, exempt map[string]bool, state string) error {
	head, err := exec.CommandContext(ctx, "git", "-C", w.tree(), "rev-parse", "HEAD").Output()
	if err != nil {
		return fmt.Errorf("kernel worktree: git rev-parse HEAD: %w", err)
	}
	if h := strings.TrimSpace(string(head)); h != w.commit {
		return &TreeMismatchError{Tree: w.tree(), State: state, Diffs: []string{"HEAD is " + h + ", not " + w.commit}}
	}
	out, err := exec.CommandContext(ctx, "git", "-C", w.tree(), "status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=all", "--no-renames").Output()
	if err != nil {
		return fmt.Errorf("kernel worktree: git status: %w", err)
	}
	var diffs []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 4 {
			continue
		}
		rel := strings.TrimSuffix(rec[3:], "/")
		if exempt[rel] {
			continue
		}
		diffs = append(diffs, rel+": git status "+strings.TrimSpace(rec[:2]))
	}
	if len(diffs) > 0 {
		return &TreeMismatchError{Tree: w.tree(), State: state, Diffs: diffs}
	}
	return nil
}
