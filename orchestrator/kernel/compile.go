package kernel

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/procgroup"
)

// step reports a step of a compilation: on a terminal, one updating
// line per kernel.
func (b *Builder) step(variant, text string, left time.Duration) {
	b.Progress.Printf("%s", progress.Step{Phase: "kernel " + variant, Text: text, Left: left})
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

// configure makes buildDir/.config from the base target plus fragments,
// once per build directory, and verifies it every time.
func (b *Builder) configure(ctx context.Context, tree, buildDir string, req Request) error {
	cfgPath := filepath.Join(buildDir, ".config")
	done := filepath.Join(buildDir, ".kregress-configured")
	if _, err := os.Stat(done); err != nil {
		b.Progress.Printf("kernel: configuring (%s + %d fragment(s))", req.BaseConfig, len(req.Fragments))
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
