// Package kernel turns a kernel source, a patch list and config fragments
// into a bzImage. Builds are cached by content: the key covers the source
// identity, every patch's bytes, the base config, the fragments and the
// compiler version, so the same inputs never compile twice. All variants of
// all families built from one source and config share a worktree and an
// out-of-tree build directory: switching variant restores only the files
// patches touched and reruns make, which recompiles just what those files
// feed.
package kernel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/filecopy"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/patches"
)

// Builder builds kernels into a cache directory.
type Builder struct {
	CacheDir string
	Jobs     int
	// CCache selects "ccache gcc" as the compiler when ccache is installed.
	CCache bool
	// Progress, if set, is told of each stage and of compile progress.
	Progress progress.Reporter
}

// Kernel is a built kernel and its provenance.
type Kernel struct {
	Key          string `json:"key"`
	BzImage      string `json:"bzimage"`
	Config       string `json:"config"`
	ConfigSHA256 string `json:"config_sha256"`
	// Preemption is the config's preemption model ("voluntary (dynamic)").
	Preemption  string   `json:"preemption"`
	SourceID    string   `json:"source_id"`
	Compiler    string   `json:"compiler"`
	Patches     []string `json:"patches"`       // names, in order
	PatchSHA256 []string `json:"patch_sha256s"` // same order
	// For a git source: the commit, `git describe`, and whether the
	// tree's uncommitted changes were measured on top.
	GitCommit   string `json:"git_commit,omitempty"`
	GitDescribe string `json:"git_describe,omitempty"`
	Dirty       bool   `json:"dirty,omitempty"`
	// Offsets lists hunks applied away from their header's line.
	Offsets      []string  `json:"offsets,omitempty"`
	BaseConfig   string    `json:"base_config"`
	BuiltAt      time.Time `json:"built_at"`
	BuildSeconds float64   `json:"build_seconds"`
	Checks       []string  `json:"checks"` // expectations verified in the tree
	Cached       bool      `json:"-"`
}

// BuildError carries the compiler's first real error lines.
type BuildError struct {
	Variant string
	Log     string
	Errors  []string
	Err     error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("kernel build of variant %s failed (%v); full log: %s\n%s", e.Variant, e.Err, e.Log, strings.Join(e.Errors, "\n"))
}

func (e *BuildError) Unwrap() error { return e.Err }

// ExpectError says the tree is not in the state a variant claims.
type ExpectError struct {
	Variant, File, Contains string
	// Err: the file could not be read as a tree's file may be (a
	// symbolic link, not a regular file, larger than maxExpectFile).
	Err error
}

func (e *ExpectError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("variant %s: expect %s: %v", e.Variant, e.File, e.Err)
	}
	return fmt.Sprintf("variant %s: %s does not contain %q: the tree is not in the state this variant claims", e.Variant, e.File, e.Contains)
}

func (e *ExpectError) Unwrap() error { return e.Err }

// maxExpectFile bounds the file an expect: line reads from the tree:
// the largest of a kernel tree are generated register headers of tens
// of MiB.
const maxExpectFile = 128 << 20

// checkExpect is e's *ExpectError unless dir's copy of its file
// contains its text; the file is read as any file of a tree is
// (regularfile.ReadBelow: no symbolic link, a regular file, bounded).
func checkExpect(variant, dir string, e patches.Expect) error {
	data, err := regularfile.ReadBelow(dir, e.File, maxExpectFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &ExpectError{Variant: variant, File: e.File, Contains: e.Contains, Err: err}
	}
	if err != nil || !bytes.Contains(data, []byte(e.Contains)) {
		return &ExpectError{Variant: variant, File: e.File, Contains: e.Contains}
	}
	return nil
}

// Build returns the kernel for req, from the cache when it was built before.
func (b *Builder) Build(ctx context.Context, req Request) (*Kernel, error) {
	key, srcID, compiler, err := b.Key(ctx, req)
	if err != nil {
		return nil, err
	}
	outDir := filepath.Join(b.CacheDir, "kernels", key)
	if k, err := loadKernel(outDir); err == nil {
		k.Cached = true
		b.Progress.Printf("kernel %s/%s: cached build %s", req.Family, req.Variant.Name, key)
		b.reportUnmet(req, k)
		return k, nil
	}
	start := time.Now()
	ws, unlock, err := b.workspace(ctx, req.Source, srcID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another process may have built it while this one waited.
	if k, err := loadKernel(outDir); err == nil {
		k.Cached = true
		b.Progress.Printf("kernel %s/%s: cached build %s", req.Family, req.Variant.Name, key)
		return k, nil
	}
	tree := ws.tree()
	offsets, err := ws.switchTo(ctx, req.Patches(), applyOpts{fuzz: req.Fuzz, allowSymlinks: req.AllowSymlinks})
	if err != nil {
		return nil, err
	}
	for _, o := range offsets {
		b.Progress.Printf("kernel %s/%s: %s", req.Family, req.Variant.Name, o)
	}
	var checks []string
	for _, e := range req.Variant.Expect {
		if err := checkExpect(req.Variant.Name, tree, e); err != nil {
			return nil, err
		}
		checks = append(checks, fmt.Sprintf("%s contains %q", e.File, e.Contains))
	}

	cfgParts := [][]byte{[]byte(req.BaseConfig)}
	for _, f := range req.Fragments {
		cfgParts = append(cfgParts, []byte(f.Name), f.Data)
	}
	buildDir := filepath.Join(ws.dir, "build-"+hash16(cfgParts...))
	if err := b.configure(ctx, tree, buildDir, req); err != nil {
		return nil, err
	}
	if err := b.make(ctx, tree, buildDir, req.Variant.Name); err != nil {
		return nil, err
	}
	// make re-syncs .config when another commit's Kconfig differs: store
	// (and verify) what was really built.
	config, err := os.ReadFile(filepath.Join(buildDir, ".config"))
	if err != nil {
		return nil, fmt.Errorf("kernel config: %w", err)
	}
	if err := VerifyConfig(config, req.Fragments); err != nil {
		return nil, err
	}
	k := &Kernel{
		Key: key, SourceID: srcID, Compiler: compiler, BaseConfig: req.BaseConfig,
		ConfigSHA256: hex.EncodeToString(sha256Sum(config)), Preemption: Preemption(config), BuiltAt: time.Now().UTC(),
		BuildSeconds: time.Since(start).Seconds(), Checks: checks, Offsets: offsets,
	}
	if g, ok := req.Source.(GitSource); ok {
		k.GitCommit = ws.commit
		k.GitDescribe = g.Describe(ctx, ws.commit)
		k.Dirty = strings.Contains(srcID, "+dirty:")
	}
	for _, p := range req.Patches() {
		k.Patches = append(k.Patches, p.Name)
		k.PatchSHA256 = append(k.PatchSHA256, p.SHA256)
	}
	if err := storeKernel(outDir, filepath.Join(buildDir, "arch/x86/boot/bzImage"), config, k); err != nil {
		return nil, err
	}
	b.Progress.Printf("kernel %s/%s: built %s in %.0fs", req.Family, req.Variant.Name, key, k.BuildSeconds)
	k, err = loadKernel(outDir)
	if err != nil {
		return nil, err
	}
	b.reportUnmet(req, k)
	return k, nil
}

// reportUnmet says which options req's Wanted fragments (the kselftest
// targets') ask for that k's .config lacks, for a cached kernel too: every
// run's log says why a target's test may fail or skip.
func (b *Builder) reportUnmet(req Request, k *Kernel) {
	if !slices.ContainsFunc(req.Fragments, func(f Fragment) bool { return f.Wanted }) {
		return
	}
	config, err := os.ReadFile(k.Config)
	if err != nil {
		b.Progress.Printf("kernel %s/%s: cannot check the kselftest targets' options: %v", req.Family, req.Variant.Name, err)
		return
	}
	for _, l := range UnmetLines(UnmetWanted(config, req.Fragments)) {
		b.Progress.Printf("kernel %s/%s: %s", req.Family, req.Variant.Name, l)
	}
}

func sha256Sum(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

func storeKernel(outDir, bzImage string, config []byte, k *Kernel) error {
	tmp := outDir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := filecopy.Replace(bzImage, filepath.Join(tmp, "bzImage"), 0o666); err != nil {
		return fmt.Errorf("kernel: store bzImage: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "config"), config, 0o644); err != nil {
		return err
	}
	k.BzImage = filepath.Join(outDir, "bzImage")
	k.Config = filepath.Join(outDir, "config")
	if err := writeJSON(filepath.Join(tmp, "kernel.json"), k); err != nil {
		return err
	}
	os.RemoveAll(outDir)
	return os.Rename(tmp, outDir)
}

func loadKernel(dir string) (*Kernel, error) {
	data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		return nil, err
	}
	var k Kernel
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, err
	}
	if _, err := os.Stat(k.BzImage); err != nil {
		return nil, err
	}
	return &k, nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
