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
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kregress/kregress/orchestrator/filelock"
	"github.com/kregress/kregress/patches"
)

// formatVersion is part of every cache key: bump it when the way a tree is
// built changes.
const formatVersion = "kregress-kernel/1"

// Builder builds kernels into a cache directory.
type Builder struct {
	CacheDir string
	Jobs     int
	// CCache selects "ccache gcc" as the compiler when ccache is installed.
	CCache bool
	Log    *slog.Logger
	// Progress, if set, is told of each stage and of compile progress.
	Progress func(msg string)
}

// Request is one kernel to build.
type Request struct {
	Source     Source
	Family     string
	Variant    *patches.Variant
	BaseConfig string // make target: tinyconfig, defconfig, ...
	Fragments  []Fragment
}

// Kernel is a built kernel and its provenance.
type Kernel struct {
	Key          string    `json:"key"`
	BzImage      string    `json:"bzimage"`
	Config       string    `json:"config"`
	ConfigSHA256 string    `json:"config_sha256"`
	SourceID     string    `json:"source_id"`
	Compiler     string    `json:"compiler"`
	Patches      []string  `json:"patches"`       // names, in order
	PatchSHA256  []string  `json:"patch_sha256s"` // same order
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

func (b *Builder) progress(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if b.Progress != nil {
		b.Progress(msg)
	}
	if b.Log != nil {
		b.Log.Info(msg)
	}
}

func hash16(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Compiler returns the first line of `gcc --version`.
func Compiler(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "gcc", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("gcc not found: apt-get install build-essential: %w", err)
	}
	return strings.SplitN(string(out), "\n", 2)[0], nil
}

// Key computes the build cache key of req without building anything.
func (b *Builder) Key(ctx context.Context, req Request) (key, srcID, compiler string, err error) {
	if srcID, err = req.Source.Identity(ctx); err != nil {
		return "", "", "", err
	}
	if compiler, err = Compiler(ctx); err != nil {
		return "", "", "", err
	}
	parts := [][]byte{[]byte(formatVersion), []byte(srcID), []byte(compiler), []byte(req.BaseConfig)}
	for _, f := range req.Fragments {
		parts = append(parts, []byte(f.Name), f.Data)
	}
	for _, p := range req.Variant.Files {
		parts = append(parts, p.Data)
	}
	for _, e := range req.Variant.Expect {
		parts = append(parts, []byte(e.File), []byte(e.Contains))
	}
	return hash16(parts...), srcID, compiler, nil
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
	srcKey := hash16([]byte(srcID))
	pristine, err := b.pristine(ctx, req.Source, srcKey)
	if err != nil {
		return nil, err
	}
	// One worktree and one build directory per source and config, shared
	// by every family: patches restore what the previous variant touched,
	// so any variant of any family is an incremental build.
	tree := filepath.Join(b.CacheDir, "trees", srcKey)
	unlock, err := filelock.Lock(tree + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := b.worktree(ctx, pristine, tree); err != nil {
		return nil, err
	}
	if err := b.switchVariant(ctx, pristine, tree, req.Variant); err != nil {
		return nil, err
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
	buildDir := filepath.Join(b.CacheDir, "builds", srcKey+"-"+hash16(cfgParts...))
	config, err := b.configure(ctx, tree, buildDir, req)
	if err != nil {
		return nil, err
	}
	if err := b.make(ctx, tree, buildDir, req.Variant.Name); err != nil {
		return nil, err
	}
	k := &Kernel{
		Key: key, SourceID: srcID, Compiler: compiler, BaseConfig: req.BaseConfig,
		ConfigSHA256: hex.EncodeToString(sha256Sum(config)), BuiltAt: time.Now().UTC(),
		BuildSeconds: time.Since(start).Seconds(), Checks: checks,
	}
	for _, p := range req.Variant.Files {
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
	unlock, err := filelock.Lock(dir + ".lock")
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
		return "", fmt.Errorf("kernel source %s: no top-level Makefile after unpacking", src)
	}
	return dir, os.Rename(tmp, dir)
}

// worktree creates the family's working copy as hardlinks to the pristine
// tree: cheap, and restoreFile breaks the link of every file it touches.
func (b *Builder) worktree(ctx context.Context, pristine, tree string) error {
	if _, err := os.Stat(filepath.Join(tree, "Makefile")); err == nil {
		return nil
	}
	tmp := tree + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(tree), 0o755); err != nil {
		return err
	}
	if err := run(ctx, "", nil, "cp", "-al", pristine, tmp); err != nil {
		return fmt.Errorf("kernel worktree: %w", err)
	}
	return os.Rename(tmp, tree)
}

// treeState records which patches are applied to a worktree and which
// files they touched.
type treeState struct {
	Patches []string `json:"patches"` // sha256s, in order
	Files   []string `json:"files"`
}

func stateFile(tree string) string { return tree + ".state.json" }

// switchVariant brings the worktree to pristine + the variant's patches.
func (b *Builder) switchVariant(ctx context.Context, pristine, tree string, v *patches.Variant) error {
	var st treeState
	if data, err := os.ReadFile(stateFile(tree)); err == nil {
		json.Unmarshal(data, &st)
	}
	var want []string
	touched := map[string]bool{}
	for _, p := range v.Files {
		want = append(want, p.SHA256)
		for _, f := range p.Files {
			touched[f] = true
		}
	}
	if strings.Join(st.Patches, ",") == strings.Join(want, ",") && len(st.Files) == len(touched) {
		return nil // already in this state: touch nothing, make has nothing to do
	}
	for _, f := range st.Files {
		touched[f] = true
	}
	// Record the union first: a crash mid-way still knows what to restore.
	union := make([]string, 0, len(touched))
	for f := range touched {
		union = append(union, f)
	}
	if err := writeJSON(stateFile(tree), treeState{Patches: []string{"(switching)"}, Files: union}); err != nil {
		return err
	}
	for _, f := range union {
		if err := restoreFile(pristine, tree, f); err != nil {
			return fmt.Errorf("kernel worktree: restore %s: %w", f, err)
		}
	}
	var files []string
	for _, p := range v.Files {
		if err := applyPatch(ctx, tree, p); err != nil {
			// Leave the tree pristine for these files; the state still
			// lists them, so the next switch restores them again.
			for _, f := range union {
				restoreFile(pristine, tree, f)
			}
			writeJSON(stateFile(tree), treeState{Files: union})
			return err
		}
		files = append(files, p.Files...)
	}
	return writeJSON(stateFile(tree), treeState{Patches: want, Files: files})
}

// configure makes buildDir/.config from the base target plus fragments,
// once per build directory, and verifies it every time.
func (b *Builder) configure(ctx context.Context, tree, buildDir string, req Request) ([]byte, error) {
	cfgPath := filepath.Join(buildDir, ".config")
	done := filepath.Join(buildDir, ".kregress-configured")
	if _, err := os.Stat(done); err != nil {
		b.progress("kernel: configuring (%s + %d fragment(s))", req.BaseConfig, len(req.Fragments))
		if err := os.MkdirAll(buildDir, 0o755); err != nil {
			return nil, err
		}
		if err := run(ctx, tree, nil, "make", "O="+buildDir, req.BaseConfig); err != nil {
			return nil, fmt.Errorf("kernel config: base %q: %w", req.BaseConfig, err)
		}
		f, err := os.OpenFile(cfgPath, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		for _, frag := range req.Fragments {
			fmt.Fprintf(f, "\n# kregress fragment %s\n%s\n", frag.Name, frag.Data)
		}
		f.Close()
		if err := run(ctx, tree, nil, "make", "O="+buildDir, "olddefconfig"); err != nil {
			return nil, fmt.Errorf("kernel config: olddefconfig: %w", err)
		}
	}
	config, err := os.ReadFile(cfgPath)
	if err != nil {
		return nil, fmt.Errorf("kernel config: %w", err)
	}
	if err := VerifyConfig(config, req.Fragments); err != nil {
		return nil, err
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		return nil, err
	}
	return config, nil
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
	b.progress("kernel %s: make %s", variant, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Dir = tree
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	// Kill make's whole process group on cancel (Ctrl-C), not just make.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
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
					b.progress("kernel %s: compiled %d files", variant, n)
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
	return nil
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
	if err := copyFile(bzImage, filepath.Join(tmp, "bzImage")); err != nil {
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

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
