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
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("kernel source: hash %s: %w", d.tarball(), err)
	}
	version := "unknown"
	if out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Version}", d.Package).Output(); err == nil && len(out) > 0 {
		version = string(out)
	}
	return fmt.Sprintf("debian:%s=%s:sha256:%s", d.Package, version, hex.EncodeToString(h.Sum(nil))[:16]), nil
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
}

func (g GitSource) String() string { return fmt.Sprintf("git tree %s at %s", g.Tree, g.Ref) }

func (g GitSource) commit(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", g.Tree, "rev-parse", "--verify", "--quiet", g.Ref+"^{commit}").Output()
	if err != nil {
		return "", fmt.Errorf("kernel source: %s: ref %q is not a commit there", g.Tree, g.Ref)
	}
	return strings.TrimSpace(string(out)), nil
}

// Identity is the commit the ref resolves to.
func (g GitSource) Identity(ctx context.Context) (string, error) {
	c, err := g.commit(ctx)
	if err != nil {
		return "", err
	}
	return "git:" + c, nil
}

// Unpack exports the commit with git archive (no .git, no local changes).
func (g GitSource) Unpack(ctx context.Context, dir string) error {
	c, err := g.commit(ctx)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "sh", g.Tree, c, dir)
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
