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
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kregress/kregress/internal/filecopy"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/procgroup"
)

// Builder builds kernels into a cache directory.
type Builder struct {
	CacheDir string
	Jobs     int
	// CCache selects "ccache gcc" as the compiler when ccache is installed.
	CCache bool
	Log    *slog.Logger
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
}

func (e *ExpectError) Error() string {
	return fmt.Sprintf("variant %s: %s does not contain %q: the tree is not in the state this variant claims", e.Variant, e.File, e.Contains)
}

// step reports a step of a compilation: on a terminal, one updating
// line per kernel.
func (b *Builder) step(variant, text string, left time.Duration) {
	b.Progress.Printf("%s", progress.Step{Phase: "kernel " + variant, Text: text, Left: left})
	if b.Log != nil {
		b.Log.Info(text)
	}
}

func (b *Builder) progress(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	b.Progress.Printf("%s", msg)
	if b.Log != nil {
		b.Log.Info(msg)
	}
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
		b.progress("kernel %s/%s: cached build %s", req.Family, req.Variant.Name, key)
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
		b.progress("kernel %s/%s: cached build %s", req.Family, req.Variant.Name, key)
		return k, nil
	}
	tree := ws.tree()
	offsets, err := ws.switchTo(ctx, req.Patches(), applyOpts{fuzz: req.Fuzz, allowSymlinks: req.AllowSymlinks})
	if err != nil {
		return nil, err
	}
	for _, o := range offsets {
		b.progress("kernel %s/%s: %s", req.Family, req.Variant.Name, o)
	}
	var checks []string
	for _, e := range req.Variant.Expect {
		data, err := os.ReadFile(filepath.Join(tree, e.File))
		if err != nil || !strings.Contains(string(data), e.Contains) {
			return nil, &ExpectError{Variant: req.Variant.Name, File: e.File, Contains: e.Contains}
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
	b.progress("kernel %s/%s: built %s in %.0fs", req.Family, req.Variant.Name, key, k.BuildSeconds)
	return loadKernel(outDir)
}

func sha256Sum(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

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
	b.progress("unpacking %s (once)", src)
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

// configure makes buildDir/.config from the base target plus fragments,
// once per build directory, and verifies it every time.
func (b *Builder) configure(ctx context.Context, tree, buildDir string, req Request) error {
	cfgPath := filepath.Join(buildDir, ".config")
	done := filepath.Join(buildDir, ".kregress-configured")
	if _, err := os.Stat(done); err != nil {
		b.progress("kernel: configuring (%s + %d fragment(s))", req.BaseConfig, len(req.Fragments))
		if err := os.MkdirAll(buildDir, 0o755); err != nil {
			return err
		}
		if err := run(ctx, tree, nil, "make", "O="+buildDir, req.BaseConfig); err != nil {
			return fmt.Errorf("kernel config: base %q: %w", req.BaseConfig, err)
		}
		f, err := os.OpenFile(cfgPath, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		for _, frag := range req.Fragments {
			fmt.Fprintf(f, "\n# kregress fragment %s\n%s\n", frag.Name, frag.Data)
		}
		f.Close()
		if err := run(ctx, tree, nil, "make", "O="+buildDir, "olddefconfig"); err != nil {
			return fmt.Errorf("kernel config: olddefconfig: %w", err)
		}
	}
	config, err := os.ReadFile(cfgPath)
	if err != nil {
		return fmt.Errorf("kernel config: %w", err)
	}
	if err := VerifyConfig(config, req.Fragments); err != nil {
		return err
	}
	return os.WriteFile(done, nil, 0o644)
}

// make runs the compile, counting compiled files for progress.
func (b *Builder) make(ctx context.Context, tree, buildDir, variant string) error {
	jobs := b.Jobs
	if jobs < 1 {
		jobs = 1
	}
	args := []string{"O=" + buildDir, fmt.Sprintf("-j%d", jobs)}
	if b.CCache {
		if _, err := exec.LookPath("ccache"); err == nil {
			args = append(args, "CC=ccache gcc")
		}
	}
	args = append(args, "bzImage")
	logPath := filepath.Join(buildDir, "build-"+variant+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	b.step(variant, fmt.Sprintf("kernel %s: make %s", variant, strings.Join(args, " ")), 0)
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Dir = tree
	// Paths under the cache become relative in ccache's eyes: every
	// workspace has the same layout, so one workspace's objects serve
	// another's identical files.
	cmd.Env = append(os.Environ(), "CCACHE_BASEDIR="+b.CacheDir, "CCACHE_NOHASHDIR=true")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	// On cancel (Ctrl-C) make's whole process group gets SIGTERM, so make
	// deletes the half-written object, then SIGKILL: a truncated .o left
	// by a bare SIGKILL would be taken as up to date by the next build.
	procgroup.SetGraceful(cmd, 10*time.Second)
	// A cold build (empty build directory) compiles about as many files
	// as the last cold build of this config did: that is the estimate.
	stats := filepath.Join(b.CacheDir, "build-stats", filepath.Base(buildDir)+".json")
	_, statErr := os.Stat(filepath.Join(buildDir, "vmlinux"))
	cold := errors.Is(statErr, os.ErrNotExist)
	var est buildStats
	if cold {
		est = readBuildStats(stats)
	}
	start := time.Now()
	var compiled atomic.Int64
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		last := time.Now()
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if strings.HasPrefix(strings.TrimSpace(line), "CC ") {
				n := compiled.Add(1)
				if time.Since(last) > 15*time.Second {
					last = time.Now()
					text, left := progressLine(n, cold, est.Files, time.Since(start))
					b.step(variant, fmt.Sprintf("kernel %s: %s", variant, text), left)
				}
			}
		}
	}()
	err = cmd.Run()
	pw.Close()
	<-copied
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &BuildError{Variant: variant, Log: logPath, Errors: firstErrors(logPath, 10), Err: err}
	}
	if cold {
		writeBuildStats(stats, buildStats{Files: compiled.Load(), Seconds: time.Since(start).Seconds()})
	}
	return nil
}

// buildStats is what a cold build of one config compiled and how long it
// took: the next cold build's estimate.
type buildStats struct {
	Files   int64   `json:"files"`
	Seconds float64 `json:"seconds"`
}

func readBuildStats(path string) buildStats {
	var st buildStats
	if data, err := os.ReadFile(path); err == nil {
		json.Unmarshal(data, &st)
	}
	return st
}

func writeBuildStats(path string, st buildStats) {
	if data, err := json.Marshal(st); err == nil && os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		os.WriteFile(path, data, 0o644)
	}
}

// progressLine says how far a build is: of the estimated total and with
// the time left at the rate so far when the last cold build of the config
// is known, else what kind of build it is.
func progressLine(n int64, cold bool, estimate int64, elapsed time.Duration) (string, time.Duration) {
	switch {
	case !cold:
		return fmt.Sprintf("compiled %d files (incremental: only what changed)", n), 0
	case estimate <= 0:
		return fmt.Sprintf("compiled %d files (first build of this config: no estimate yet)", n), 0
	case n >= estimate:
		return fmt.Sprintf("compiled %d of ~%d files, linking soon", n, estimate), 0
	}
	left := time.Duration(float64(elapsed) * float64(estimate-n) / float64(n)).Round(10 * time.Second)
	return fmt.Sprintf("compiled %d of ~%d files (%d%%), ~%s left", n, estimate, 100*n/estimate, left), left
}

// firstErrors returns the first lines of a build log that report errors.
func firstErrors(logPath string, n int) []string {
	f, err := os.Open(logPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		l := sc.Text()
		if strings.Contains(l, "error:") || strings.Contains(l, "Error ") || strings.Contains(l, "undefined reference") {
			out = append(out, l)
		}
	}
	return out
}

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
