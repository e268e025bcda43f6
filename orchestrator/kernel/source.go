package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/kregress/kregress/internal/shellquote"
	"github.com/kregress/kregress/orchestrator/procgroup"
	"github.com/kregress/kregress/patches"
)

// Source is where a pristine kernel tree comes from.
type Source interface {
	// Identity changes whenever the tree's bytes would: it keys the
	// unpacked tree and every build made from it.
	Identity(ctx context.Context) (string, error)
	// Unpack writes the pristine tree into dir, which exists and is empty.
	Unpack(ctx context.Context, dir string) error
	// String says what the source is, for humans.
	String() string
}

// DebianSource is a linux-source-X.Y package's tarball in /usr/src.
type DebianSource struct {
	Package string // e.g. linux-source-6.12
	SrcDir  string // default /usr/src
}

func (d DebianSource) tarball() string {
	dir := d.SrcDir
	if dir == "" {
		dir = "/usr/src"
	}
	return filepath.Join(dir, d.Package+".tar.xz")
}

// Tarball is the package's source tarball (kregress doctor checks it).
func (d DebianSource) Tarball() string { return d.tarball() }

func (d DebianSource) String() string {
	return "Debian package " + d.Package + " (" + d.tarball() + ")"
}

// MissingSourceError says the tarball is not there and what installs it.
type MissingSourceError struct {
	Path, Package string
}

func (e *MissingSourceError) Error() string {
	return fmt.Sprintf("kernel source tarball %s not found: install the Debian package %s (apt-get install %s)", e.Path, e.Package, e.Package)
}

// Identity is the package version (when dpkg knows it) plus the tarball's
// SHA-256, so a rebuilt package with the same version still changes it.
func (d DebianSource) Identity(ctx context.Context) (string, error) {
	f, err := os.Open(d.tarball())
	if os.IsNotExist(err) {
		return "", &MissingSourceError{Path: d.tarball(), Package: d.Package}
	}
	if err != nil {
		return "", fmt.Errorf("kernel source: %w", err)
	}
	defer f.Close()
	sum, err := tarballSum(f)
	if err != nil {
		return "", fmt.Errorf("kernel source: hash %s: %w", d.tarball(), err)
	}
	version := "unknown"
	if out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Version}", d.Package).Output(); err == nil && len(out) > 0 {
		version = string(out)
	}
	return fmt.Sprintf("debian:%s=%s:sha256:%s", d.Package, version, sum[:16]), nil
}

// sums remembers tarball hashes within one process, by file identity:
// one command asks for a source's identity several times (the primary
// metric's check, each variant's patch check, the build), and hashing a
// kernel tarball is slow on a loaded machine.
var sums sync.Map // sumKey -> string

type sumKey struct {
	dev, ino uint64
	size     int64
	mtime    int64
}

// tarballSum is the hex SHA-256 of f, from sums when f (same inode, size
// and modification time) was hashed before.
func tarballSum(f *os.File) (string, error) {
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	var key *sumKey
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		key = &sumKey{dev: uint64(sys.Dev), ino: sys.Ino, size: st.Size(), mtime: st.ModTime().UnixNano()}
		if v, ok := sums.Load(*key); ok {
			return v.(string), nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if key != nil {
		sums.Store(*key, sum)
	}
	return sum, nil
}

// Unpack extracts the tarball without its top directory.
func (d DebianSource) Unpack(ctx context.Context, dir string) error {
	if _, err := os.Stat(d.tarball()); os.IsNotExist(err) {
		return &MissingSourceError{Path: d.tarball(), Package: d.Package}
	}
	return run(ctx, "", nil, "tar", "-xf", d.tarball(), "-C", dir, "--strip-components=1")
}

// GitSource is a commit of a local kernel git tree.
type GitSource struct {
	Tree string
	Ref  string
	// AllowDirty lets a ref of HEAD stand for the working tree as it is:
	// HEAD plus the uncommitted changes to tracked files (`git diff HEAD`),
	// recorded as such. Without it a dirty tree is refused, because the
	// user's edits would silently not be measured.
	AllowDirty bool
}

// String names the tree and the ref measured: HEAD when none is given,
// never an empty "at ".
func (g GitSource) String() string { return fmt.Sprintf("git tree %s at %s", g.Tree, g.ref()) }

// NotGitError is a kernel.git_tree that is not a git work tree.
type NotGitError struct{ Tree string }

func (e *NotGitError) Error() string {
	return fmt.Sprintf("kernel.git_tree %s is not a git repository (git rev-parse --git-dir failed there)", e.Tree)
}

// UnknownRefError is a ref the tree does not have.
type UnknownRefError struct{ Tree, Ref string }

func (e *UnknownRefError) Error() string {
	return fmt.Sprintf("kernel.git_tree %s has no commit %q (try: %s)", e.Tree, e.Ref, e.Suggestion())
}

// Suggestion is the command that shows the tree's recent commits at the
// ref: quoted for a shell (the ref and the tree come from the user or an
// experiment file, and the line is meant to be pasted), the ref after
// --end-of-options so that git never reads it as an option.
func (e *UnknownRefError) Suggestion() string {
	return shellquote.Join([]string{"git", "-C", e.Tree, "log", "--oneline", "-5", "--end-of-options", e.Ref})
}

// DirtyError is a dirty tree asked for at HEAD without AllowDirty.
type DirtyError struct {
	Tree  string
	Files []string
}

func (e *DirtyError) Error() string {
	shown := e.Files
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("... %d more", len(e.Files)-5))
	}
	return fmt.Sprintf("kernel.git_tree %s has uncommitted changes (%s): commit or stash them, name a commit as the ref, or pass --allow-dirty to measure HEAD plus these changes (recorded as dirty)", e.Tree, strings.Join(shown, ", "))
}

func (g GitSource) git(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", g.Tree}, args...)...).Output()
	return strings.TrimSpace(string(out)), err
}

// Commit resolves the ref to a commit id.
func (g GitSource) Commit(ctx context.Context) (string, error) {
	if _, err := g.git(ctx, "rev-parse", "--git-dir"); err != nil {
		return "", &NotGitError{Tree: g.Tree}
	}
	c, err := g.git(ctx, "rev-parse", "--verify", "--quiet", g.ref()+"^{commit}")
	if err != nil || c == "" {
		return "", &UnknownRefError{Tree: g.Tree, Ref: g.ref()}
	}
	return c, nil
}

func (g GitSource) ref() string {
	if g.Ref == "" {
		return "HEAD"
	}
	return g.Ref
}

// Describe is `git describe --always --tags` of the commit, for humans.
func (g GitSource) Describe(ctx context.Context, commit string) string {
	d, err := g.git(ctx, "describe", "--always", "--tags", commit)
	if err != nil {
		return commit[:min(12, len(commit))]
	}
	return d
}

// Uncommitted returns the tree's uncommitted changes to tracked files as a
// patch when the ref is HEAD and the tree is dirty: an error without
// AllowDirty, nil when clean or when the ref names another commit.
func (g GitSource) Uncommitted(ctx context.Context) (*patches.Patch, error) {
	if g.ref() != "HEAD" {
		return nil, nil
	}
	if bare, _ := g.git(ctx, "rev-parse", "--is-bare-repository"); bare == "true" {
		return nil, nil // no work tree, nothing uncommitted
	}
	raw, err := exec.CommandContext(ctx, "git", "-C", g.Tree, "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return nil, &NotGitError{Tree: g.Tree}
	}
	status := strings.TrimRight(string(raw), "\n")
	if status == "" {
		return nil, nil
	}
	if !g.AllowDirty {
		var files []string
		for _, l := range strings.Split(status, "\n") {
			if len(l) > 3 {
				files = append(files, l[3:])
			}
		}
		return nil, &DirtyError{Tree: g.Tree, Files: files}
	}
	diff, err := exec.CommandContext(ctx, "git", "-C", g.Tree, "diff", "--binary", "HEAD").Output()
	if err != nil {
		return nil, fmt.Errorf("kernel source: git diff HEAD in %s: %w", g.Tree, err)
	}
	return patches.ParseUser("uncommitted changes in "+g.Tree, diff)
}

// Identity is the commit the ref resolves to, plus the hash of the
// uncommitted changes when they are measured.
func (g GitSource) Identity(ctx context.Context) (string, error) {
	c, err := g.Commit(ctx)
	if err != nil {
		return "", err
	}
	dirty, err := g.Uncommitted(ctx)
	if err != nil {
		return "", err
	}
	if dirty != nil {
		return "git:" + c + "+dirty:" + dirty.SHA256[:16], nil
	}
	return "git:" + c, nil
}

// Unpack exports the commit with git archive (no .git, no local changes):
// the pristine tree the selftests are built from.
func (g GitSource) Unpack(ctx context.Context, dir string) error {
	c, err := g.Commit(ctx)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "sh", g.Tree, c, dir)
	procgroup.Set(cmd) // cancel kills git and tar, not just sh
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("kernel source: export %s: %v: %s", g, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// run runs a command in dir, sending output to w (or returning it in the
// error when w is nil).
func run(ctx context.Context, dir string, w io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	// make's children (config scripts, compilers) and tar's xz die with
	// it on cancel.
	procgroup.Set(cmd)
	var buf strings.Builder
	if w != nil {
		cmd.Stdout, cmd.Stderr = w, w
	} else {
		cmd.Stdout, cmd.Stderr = &buf, &buf
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, tail(buf.String(), 20))
	}
	return nil
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
