package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/patches"
)

// workspace is one working copy of a source plus its build directories,
// all under cacheDir/ws/<key>: the tree in tree/, one build-<config>
// directory per config. Switching between variants (patch series) or, for
// a git source, between commits of the same tree rewrites only the files
// that differ, so make recompiles only what they feed.
//
// Every workspace has the same relative layout (build dir ../tree), so
// with CCACHE_BASEDIR set to the cache root the compiler command lines
// of two workspaces are alike and ccache can serve one from the other.
type workspace struct {
	dir string
	// A tarball source: tree is a hardlinked copy of the pristine tree
	// and files patches touched are restored from it.
	pristine string
	// A git source: tree is a `git clone --shared` of the user's tree,
	// switched with git checkout.
	git         *GitSource
	commit      string
	uncommitted *patches.Patch
	base        string // what the tree is before patches: the source identity
}

func (w *workspace) tree() string { return filepath.Join(w.dir, "tree") }

// workspace returns the workspace for src, locked: the tree is created
// (once) only under the lock, so two runs on an empty cache never copy
// into the same temporary directory. While another process
// holds the lock, the builder says who and waits; ctx cancels the wait.
func (b *Builder) workspace(ctx context.Context, src Source, srcID string) (w *workspace, unlock func(), err error) {
	if g, ok := src.(GitSource); ok {
		abs, err := filepath.Abs(g.Tree)
		if err != nil {
			return nil, nil, err
		}
		g.Tree = abs
		commit, err := g.Commit(ctx)
		if err != nil {
			return nil, nil, err
		}
		dirty, err := g.Uncommitted(ctx)
		if err != nil {
			return nil, nil, err
		}
		w = &workspace{dir: filepath.Join(b.CacheDir, "ws", "git-"+hash16([]byte(abs))), git: &g, commit: commit, uncommitted: dirty, base: srcID}
	} else {
		srcKey := hash16([]byte(srcID))
		pristine, err := b.pristine(ctx, src, srcKey)
		if err != nil {
			return nil, nil, err
		}
		w = &workspace{dir: filepath.Join(b.CacheDir, "ws", srcKey), pristine: pristine, base: srcID}
	}
	if unlock, err = b.lock(ctx, w.dir+".lock", "kernel worktree "+w.dir); err != nil {
		return nil, nil, err
	}
	if w.git != nil {
		err = w.cloneOnce(ctx)
	} else {
		err = w.copyOnce(ctx)
	}
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return w, unlock, nil
}

// lock takes a cache lock, saying who holds it while waiting.
func (b *Builder) lock(ctx context.Context, path, what string) (func(), error) {
	return filelock.LockContext(ctx, path, func(holder string) {
		if holder == "" {
			holder = "a process that did not say who it is"
		}
		b.Progress.Printf("waiting for %s: locked by %s (Ctrl-C to give up)", what, holder)
	})
}

// copyOnce creates the tree as hardlinks to the pristine tree: cheap, and
// restoreFile breaks the link of every file it touches. The caller holds
// the workspace lock.
func (w *workspace) copyOnce(ctx context.Context) error {
	return w.makeTreeOnce("Makefile", func(tmp string) error {
		if err := run(ctx, "", nil, "cp", "-al", w.pristine, tmp); err != nil {
			return fmt.Errorf("kernel worktree: %w", err)
		}
		return nil
	})
}

// cloneOnce clones the user's tree without a checkout, sharing its object
// store (no copy of the history; commits made later are visible too).
func (w *workspace) cloneOnce(ctx context.Context) error {
	return w.makeTreeOnce(".git", func(tmp string) error {
		if err := run(ctx, "", nil, "git", "clone", "-q", "--shared", "--no-checkout", w.git.Tree, tmp); err != nil {
			return fmt.Errorf("kernel worktree: clone %s: %w", w.git.Tree, err)
		}
		return nil
	})
}

// makeTreeOnce makes the tree unless it holds marker already: fill fills
// a fresh tmp directory beside it, renamed into place only once complete,
// so that an interrupted fill leaves no half tree to be taken for one.
func (w *workspace) makeTreeOnce(marker string, fill func(tmp string) error) error {
	if _, err := os.Stat(filepath.Join(w.tree(), marker)); err == nil {
		return nil
	}
	tmp := w.tree() + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, w.tree())
}

// treeState records what the tree holds: its base and the patches applied.
type treeState struct {
	Base    string   `json:"base"`
	Patches []string `json:"patches"` // sha256s, in order
	Files   []string `json:"files"`   // paths the patches touched
}

func (w *workspace) stateFile() string { return filepath.Join(w.dir, "state.json") }

// switchTo brings the tree to its base plus ps, touching only what
// differs from its current state. A patch that does not apply leaves the
// tree at its base (nothing half-applied). After the reset it proves the
// tree equals its base (verifyBase: a hardlink/byte comparison with the
// pristine tree, or git status), and after applying that nothing but the
// touched files changed, so no parser gap can carry one variant's change
// into another's build. It returns the hunks applied at an offset.
func (w *workspace) switchTo(ctx context.Context, ps []*patches.Patch, o applyOpts) ([]string, error) {
	var st treeState
	if data, err := os.ReadFile(w.stateFile()); err == nil {
		json.Unmarshal(data, &st)
	}
	var want []string
	for _, p := range ps {
		want = append(want, p.SHA256)
	}
	if st.Base == w.base && strings.Join(st.Patches, ",") == strings.Join(want, ",") {
		return nil, nil // already there: touch nothing, make has nothing to do
	}
	series := ps
	if w.uncommitted != nil {
		series = append([]*patches.Patch{w.uncommitted}, ps...)
	}
	// Record a state that forces a full reset first: a crash mid-way
	// still knows what to undo.
	touched := map[string]bool{}
	for _, f := range st.Files {
		touched[f] = true
	}
	for _, p := range series {
		for _, f := range p.Files {
			touched[f] = true
		}
	}
	union := make([]string, 0, len(touched))
	for f := range touched {
		union = append(union, f)
	}
	if err := writeJSON(w.stateFile(), treeState{Base: "(switching)", Files: union}); err != nil {
		return nil, err
	}
	if err := w.reset(ctx, union); err != nil {
		return nil, err
	}
	// The base's links among the touched paths: after applying, any
	// other link there was made by a patch, whatever the parser read.
	baseLinks := links(w.tree(), union)
	var offsets, files []string
	for _, p := range series {
		off, err := applyPatch(ctx, w.tree(), p, o)
		if err != nil {
			// Back to the base; the state still lists every file, so
			// the next switch resets them again.
			w.reset(context.Background(), union)
			writeJSON(w.stateFile(), treeState{Base: "(failed)", Files: union})
			return nil, err
		}
		offsets = append(offsets, off...)
		files = append(files, p.Files...)
	}
	if err := w.verifyPatched(ctx, files); err != nil {
		return nil, err // the state still says (switching): the next switch resets and verifies
	}
	if !o.allowSymlinks {
		var made []string
		for f, target := range links(w.tree(), files) {
			if baseLinks[f] != target {
				made = append(made, f)
			}
		}
		if len(made) > 0 {
			sort.Strings(made)
			w.reset(context.Background(), union)
			writeJSON(w.stateFile(), treeState{Base: "(failed)", Files: union})
			return nil, &SymlinkPatchError{Patch: "series", Paths: made}
		}
	}
	return offsets, writeJSON(w.stateFile(), treeState{Base: w.base, Patches: want, Files: files})
}

// reset brings the tree back to its base and proves it: the pristine
// copies of files (tarball), restored shallowest first so a symlink a
// patch made is removed before anything below it is looked at, or the
// commit with nothing else (git); then verifyBase.
func (w *workspace) reset(ctx context.Context, files []string) error {
	if w.git == nil {
		sorted := append([]string(nil), files...)
		sort.Slice(sorted, func(i, j int) bool {
			di, dj := strings.Count(sorted[i], "/"), strings.Count(sorted[j], "/")
			if di != dj {
				return di < dj
			}
			return sorted[i] < sorted[j]
		})
		for _, f := range sorted {
			if err := restoreFile(w.pristine, w.tree(), f); err != nil {
				var se *SymlinkError
				if errors.As(err, &se) {
					continue // below a link no patch named: verifyBase removes it and restores this
				}
				return fmt.Errorf("kernel worktree: restore %s: %w", f, err)
			}
		}
		return w.verifyBase(ctx)
	}
	// checkout -f rewrites only files that differ from the commit (those
	// patches touched, those the commits differ in); clean removes files
	// patches created. Builds are out of tree, so nothing else is lost.
	for _, args := range [][]string{
		{"-c", "advice.detachedHead=false", "checkout", "-q", "-f", "--detach", w.commit},
		{"clean", "-q", "-ffdx"},
	} {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", w.tree()}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("kernel worktree: git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return w.verifyBase(ctx)
}

// links maps those of paths that are symlinks in tree to their targets.
func links(tree string, paths []string) map[string]string {
	out := map[string]string{}
	for _, f := range paths {
		if st, err := os.Lstat(filepath.Join(tree, f)); err == nil && st.Mode().Type() == os.ModeSymlink {
			out[f], _ = os.Readlink(filepath.Join(tree, f))
		}
	}
	return out
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

// pristine unpacks the source once; the tree is never modified afterwards.
func (b *Builder) pristine(ctx context.Context, src Source, srcKey string) (string, error) {
	dir := filepath.Join(b.CacheDir, "src", srcKey)
	if _, err := os.Stat(filepath.Join(dir, "Makefile")); err == nil {
		return dir, nil
	}
	unlock, err := b.lock(ctx, dir+".lock", "kernel source "+dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "Makefile")); err == nil {
		return dir, nil
	}
	b.Progress.Printf("unpacking %s (once)", src)
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	if err := src.Unpack(ctx, tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if _, err := os.Stat(filepath.Join(tmp, "Makefile")); err != nil {
		os.RemoveAll(tmp)
		return "", &NotKernelTreeError{Source: src.String(), Missing: []string{"top-level Makefile"}}
	}
	return dir, os.Rename(tmp, dir)
}
