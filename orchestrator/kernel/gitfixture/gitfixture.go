// Package gitfixture makes a kernel git repository from an unpacked
// kernel tree, for the end-to-end tests and the benchmarks: the tree as
// the first commit (tag "base"), a branch of ten commits that each touch
// one .c file ("ten-later"), and a branch holding one real change to
// kernel/cgroup/rstat.c ("conditional-relock", for `git format-patch`).
//
// The repository is bare (the tree is indexed in place, never copied) and
// deterministic: fixed authors and dates give the same commit ids on every
// machine, so kernel builds keyed by commit are cached across test runs.
package gitfixture

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// version names the fixture's layout: bump it when the commits change.
const version = "kregress-gitfixture/1"

// Repo is a made fixture.
type Repo struct {
	Path string // the bare repository
	// Base is the tag of the imported tree; Later the branch ten commits
	// on; Topic the branch with one rstat.c change on top of Base.
	Base, Later, Topic string
	// LaterFiles are the files the ten commits touch.
	LaterFiles []string
}

// laterFiles: a few .c files the ten commits touch, round robin.
var laterFiles = []string{"kernel/cgroup/rstat.c", "mm/swap.c", "kernel/fork.c", "kernel/cgroup/cpuset.c"}

// Make returns the fixture under dir, building it once from tree (an
// unpacked kernel source with kernel/cgroup/rstat.c). topicPatch is the
// change the Topic branch commits (a unified diff against tree).
func Make(ctx context.Context, tree, dir string, topicPatch []byte) (*Repo, error) {
	r := &Repo{Path: filepath.Join(dir, "linux.git"), Base: "base", Later: "ten-later", Topic: "conditional-relock", LaterFiles: laterFiles}
	done := filepath.Join(r.Path, "kregress-fixture")
	if data, err := os.ReadFile(done); err == nil && string(data) == version {
		return r, nil
	}
	os.RemoveAll(r.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	g := &gitRunner{dir: r.Path}
	if _, err := g.run(ctx, nil, "init", "-q", "--bare", "-b", "main", r.Path); err != nil {
		return nil, err
	}
	// Index the tree where it lies (-f: the tarball's .gitignore files
	// must not hide any of its files); fast loose-object compression.
	g.worktree = tree
	if _, err := g.run(ctx, nil, "-c", "core.looseCompression=1", "add", "-A", "-f", "."); err != nil {
		return nil, err
	}
	g.worktree = ""
	base, err := g.commit(ctx, "", "Import the kernel tree", 0)
	if err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, nil, "tag", r.Base, base); err != nil {
		return nil, err
	}
	// Ten commits, each appending a comment to one file.
	head := base
	for i := 1; i <= 10; i++ {
		file := laterFiles[(i-1)%len(laterFiles)]
		old, err := g.run(ctx, nil, "cat-file", "blob", head+":"+file)
		if err != nil {
			return nil, err
		}
		blob, err := g.run(ctx, append(old, []byte(fmt.Sprintf("/* kregress fixture: change %d of 10 */\n", i))...), "hash-object", "-w", "--stdin")
		if err != nil {
			return nil, err
		}
		if _, err := g.run(ctx, nil, "update-index", "--cacheinfo", "100644,"+strings.TrimSpace(string(blob))+","+file); err != nil {
			return nil, err
		}
		if head, err = g.commit(ctx, head, fmt.Sprintf("fixture: touch %s (%d of 10)", file, i), i); err != nil {
			return nil, err
		}
	}
	if _, err := g.run(ctx, nil, "branch", "-f", r.Later, head); err != nil {
		return nil, err
	}
	// The topic branch: base + topicPatch, applied to the index only.
	if _, err := g.run(ctx, nil, "read-tree", base); err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, topicPatch, "apply", "--cached", "-"); err != nil {
		return nil, err
	}
	topic, err := g.commit(ctx, base, "cgroup/rstat: relock only when needed\n\nThe pre-6.15 loop, as a topic branch for kregress's tests.", 11)
	if err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, nil, "branch", "-f", r.Topic, topic); err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, nil, "update-ref", "HEAD", base); err != nil {
		return nil, err
	}
	return r, os.WriteFile(done, []byte(version), 0o644)
}

type gitRunner struct {
	dir      string   // --git-dir
	worktree string   // --work-tree, when indexing the tree
	env      []string // extra environment (a private index file)
}

// Edit makes a commit whose parent is parent and which changes one file
// by edit, and points branch at it (created or moved). Identity and date
// are fixed, so the same edit gives the same commit id — and so the same
// cached kernel — every time. Tests and the bench build histories with it
// (a commit that breaks the build, one that slows a path).
func (r *Repo) Edit(ctx context.Context, parent, branch, file, msg string, edit func(string) (string, error)) (string, error) {
	index, err := os.CreateTemp("", "kregress-fixture-index-")
	if err != nil {
		return "", err
	}
	index.Close()
	os.Remove(index.Name()) // git wants to create it
	defer os.Remove(index.Name())
	g := &gitRunner{dir: r.Path, env: []string{"GIT_INDEX_FILE=" + index.Name()}}
	old, err := g.run(ctx, nil, "show", parent+":"+file)
	if err != nil {
		return "", err
	}
	changed, err := edit(string(old))
	if err != nil {
		return "", fmt.Errorf("gitfixture: edit %s: %w", file, err)
	}
	if changed == string(old) {
		return "", fmt.Errorf("gitfixture: the edit of %s changed nothing", file)
	}
	blob, err := g.run(ctx, []byte(changed), "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	if _, err := g.run(ctx, nil, "read-tree", parent); err != nil {
		return "", err
	}
	if _, err := g.run(ctx, nil, "update-index", "--cacheinfo", "100644,"+strings.TrimSpace(string(blob))+","+file); err != nil {
		return "", err
	}
	commit, err := g.commit(ctx, parent, msg, 1000)
	if err != nil {
		return "", err
	}
	if _, err := g.run(ctx, nil, "update-ref", "refs/heads/"+branch, commit); err != nil {
		return "", err
	}
	return commit, nil
}

// Replace is an edit for Edit: old must occur exactly once.
func Replace(old, new string) func(string) (string, error) {
	return func(s string) (string, error) {
		if n := strings.Count(s, old); n != 1 {
			return "", fmt.Errorf("%q occurs %d times, want once", old, n)
		}
		return strings.Replace(s, old, new, 1), nil
	}
}

func (g *gitRunner) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	base := []string{"--git-dir=" + g.dir}
	if g.worktree != "" {
		base = append(base, "--work-tree="+g.worktree)
	}
	if args[0] == "init" {
		base = nil
	}
	cmd := exec.CommandContext(ctx, "git", append(base, args...)...)
	if len(g.env) > 0 {
		cmd.Env = append(os.Environ(), g.env...)
	}
	if g.worktree != "" {
		cmd.Dir = g.worktree
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("gitfixture: git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// commit writes the index as a commit on parent with a fixed identity
// and a date n minutes after a fixed epoch.
func (g *gitRunner) commit(ctx context.Context, parent, msg string, n int) (string, error) {
	tree, err := g.run(ctx, nil, "write-tree")
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", strings.TrimSpace(string(tree)), "-m", msg}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	date := fmt.Sprintf("%d +0000", 1764547200+60*n) // 2025-12-01 + n minutes
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + g.dir}, args...)...)
	cmd.Env = append(append(os.Environ(), g.env...), "GIT_AUTHOR_NAME=kregress fixture", "GIT_AUTHOR_EMAIL=fixture@kregress.invalid", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=kregress fixture", "GIT_COMMITTER_EMAIL=fixture@kregress.invalid", "GIT_COMMITTER_DATE="+date)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("gitfixture: commit %q: %v", msg, err)
	}
	return strings.TrimSpace(string(out)), nil
}
