// Package pipeline runs an experiment: build every variant's kernel (from
// the cache when it can), build the guest image, choose the accelerator,
// then run the cells interleaved and store each result the moment it ends.
// A Ctrl-C stores the cell in flight as incomplete and the run as
// interrupted; nothing completed is lost.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/internal/buildinfo"
	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// Version is kregress's version, stamped by the build.
var Version = "dev"

// Prepared is everything the cells need, built before the first boot.
type Prepared struct {
	Family   *patches.Family
	Variants []VariantBuild // baseline first
	Image    *initramfs.Image
	Accel    vm.AccelChoice
	AgentCmd string
	// SelftestCmd runs the cgroup selftests in a guest; empty when the
	// config turns them off.
	SelftestCmd string
	// TargetTests are the tests of the experiment's kselftest targets
	// (collection:program) that SelftestCmd runs besides its binaries.
	TargetTests []string
}

// Names lists the prepared variants in order.
func (p *Prepared) Names() []string {
	var n []string
	for _, v := range p.Variants {
		n = append(n, v.Name)
	}
	return n
}

// BuildPlan is one variant's kernel: what would be built and whether the
// cache already has it.
type BuildPlan struct {
	Variant *patches.Variant
	Request kernel.Request
	Source  string // for humans: the tree and ref, or the tarball
	Key     string
	Cached  bool
}

// Plan turns the selected variants into build requests (the harness goes
// under every variant when vm.max_cpus > vm.cpus) and looks each up in
// the cache. It builds nothing.
func Plan(ctx context.Context, cfg *config.Config, sel *variants.Selection) ([]BuildPlan, error) {
	if sel.Family.Workload != cfg.Workload.Name {
		return nil, fmt.Errorf("family %s is measured with workload %q, config asks for %q", sel.Family.Name, sel.Family.Workload, cfg.Workload.Name)
	}
	var frags []kernel.Fragment
	for _, f := range cfg.Kernel.Fragments {
		data, err := kernel.FragmentData(f)
		if err != nil {
			return nil, err
		}
		frags = append(frags, kernel.Fragment{Name: f, Data: data})
	}
	var harness []*patches.Patch
	if cfg.VM.MaxCPUs > cfg.VM.CPUs {
		// Under TCG the hotplug slots count as possible CPUs only with
		// the harness patch (patches/harness); every variant gets it.
		harness = sel.Family.Harness
	}
	b := builder(cfg, nil)
	var plans []BuildPlan
	for _, v := range sel.Variants {
		src, err := VariantSource(cfg.Kernel, v)
		if err != nil {
			return nil, err
		}
		req := kernel.Request{Source: src, Family: sel.Family.Name, Variant: v, Harness: harness,
			BaseConfig: cfg.Kernel.BaseConfig, Fragments: frags, Fuzz: cfg.Kernel.Fuzz, AllowSymlinks: cfg.Kernel.AllowSymlinks}
		key, cached, err := b.Lookup(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		plans = append(plans, BuildPlan{Variant: v, Request: req, Source: src.String(), Key: key, Cached: cached})
	}
	return plans, nil
}

func builder(cfg *config.Config, report progress.Reporter) *kernel.Builder {
	return &kernel.Builder{CacheDir: cfg.CacheDir, Jobs: cfg.Kernel.Jobs, CCache: cfg.Kernel.CCache, Progress: report}
}

// Prepare checks the plan (Preflight), builds every selected variant's
// kernel and the image, and chooses the accelerator. Nothing is stored
// yet.
func Prepare(ctx context.Context, cfg *config.Config, sel *variants.Selection, report progress.Reporter) (*Prepared, error) {
	plans, err := Plan(ctx, cfg, sel)
	if err != nil {
		return nil, err
	}
	// Before the selftests, the image and the first kernel: a candidate
	// that does not fit the tree is refused now, not after the
	// baseline's cold build.
	if err := Preflight(ctx, cfg, sel.Family, plans, report); err != nil {
		return nil, err
	}
	fam := sel.Family
	agentCmd, err := AgentCommand(cfg.Workload)
	if err != nil {
		return nil, err
	}
	src, err := Source(cfg.Kernel)
	if err != nil {
		return nil, err
	}
	b := builder(cfg, report)
	imgSpec := initramfs.Spec{Agent: cfg.Agent, Busybox: cfg.Busybox, CacheDir: cfg.CacheDir}
	var selftestCmd string
	if cfg.Selftests.Repetitions > 0 && !sel.SelftestsChosen {
		// The family's (or the default) list names tests of the newest
		// tree; keep those this tree has, and say which are not run.
		// Written into cfg: the stored configuration says what ran.
		have, err := selftestsInTree(ctx, b, src, cfg.Selftests.Binaries, report)
		if err != nil {
			return nil, err
		}
		cfg.Selftests.Binaries = have
	}
	var targetTests []string
	if cfg.Selftests.Repetitions > 0 && len(cfg.Selftests.Binaries) > 0 {
		extra, err := buildSelftests(ctx, b, src, cfg.CacheDir, cfg.Selftests.Binaries, report)
		if err != nil {
			return nil, err
		}
		imgSpec.Extra = extra
	}
	if cfg.Selftests.Repetitions > 0 && len(cfg.Selftests.Targets) > 0 {
		extra, tests, err := buildTargets(ctx, b, src, cfg.CacheDir, cfg.Selftests.Targets, report)
		if err != nil {
			return nil, err
		}
		imgSpec.Extra = addFiles(imgSpec.Extra, extra)
		targetTests = tests
	}
	if gate := slices.Concat(cfg.Selftests.Binaries, targetTests); cfg.Selftests.Repetitions > 0 && len(gate) > 0 {
		selftestCmd = selftests.Command(gate, cfg.Selftests.Timeout.D(), cfg.Selftests.RerunFailures)
	}
	packed, err := benchmarkFiles(ctx, cfg)
	if err != nil {
		return nil, err
	}
	imgSpec.Extra = append(imgSpec.Extra, packed...)
	img, err := initramfs.Build(imgSpec)
	if err != nil {
		return nil, err
	}
	report("guest image %s (%s)", img.Key, img.Path)

	host := HostInfo()
	p := &Prepared{Family: fam, Image: img, AgentCmd: agentCmd, SelftestCmd: selftestCmd, TargetTests: targetTests}
	for _, plan := range plans {
		v := plan.Variant
		k, err := BuildKernel(ctx, cfg, plan, report)
		if err != nil {
			if v.Name == fam.Baseline {
				return nil, &BaselineBuildError{Variant: v.Name, Err: err}
			}
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		cmdline := strings.TrimSpace(cfg.VM.Cmdline + " " + v.Cmdline)
		if len(plan.Request.Harness) > 0 {
			cmdline += " kregress_hotplug_lapics"
		}
		if cfg.VM.PanicOnWarn {
			cmdline += " panic_on_warn=1"
		}
		spec := vm.Spec{
			QEMU: cfg.VM.QEMU, Kernel: k.BzImage, Initrd: img.Path,
			Cmdline: cmdline,
			CPUs:    cfg.VM.CPUs, MaxCPUs: cfg.VM.MaxCPUs, MemoryMB: cfg.VM.MemoryMB,
			ICount: cfg.VM.ICount(), ICountShift: cfg.VM.ICountShift,
		}
		p.Variants = append(p.Variants, VariantBuild{Name: v.Name, Spec: spec, Provenance: results.Provenance{
			SourceID: k.SourceID, KernelKey: k.Key, Patches: k.Patches, PatchSHA256s: k.PatchSHA256,
			PatchDetails: patchDetails(plan.Request.Patches()), GitCommit: k.GitCommit, GitDescribe: k.GitDescribe, Dirty: k.Dirty,
			ApplyOffsets: k.Offsets,
			TreeChecks:   k.Checks, ConfigSHA256: k.ConfigSHA256, Preemption: k.Preemption, BaseConfig: k.BaseConfig, Compiler: k.Compiler,
			ImageKey: img.Key, HostCPU: host.CPUModel, HostCores: host.Cores,
			Workload: cfg.Workload.Name, WorkloadArgs: agentCmd,
		}})
	}
	probe := p.Variants[0].Spec
	probe.Dir = filepath.Join(cfg.CacheDir, "accel-probe")
	want := cfg.VM.Accel
	if cfg.VM.ICount() {
		want = "tcg" // validation refused kvm; auto means tcg here
	}
	p.Accel, err = vm.ChooseAccel(ctx, want, probe)
	if err != nil {
		return nil, err
	}
	report("accelerator: %s (%s)", p.Accel.Accel, p.Accel.Reason)
	for i := range p.Variants {
		p.Variants[i].Spec.Accel = p.Accel.Accel
		p.Variants[i].Provenance.AccelReason = p.Accel.Reason
	}
	return p, nil
}

// BaselineBuildError: the baseline's kernel could not be built, so the
// run cannot measure anything against it.
type BaselineBuildError struct {
	Variant string
	Err     error
}

func (e *BaselineBuildError) Error() string {
	return fmt.Sprintf("the baseline %s could not be built: %v", e.Variant, e.Err)
}

func (e *BaselineBuildError) Unwrap() error { return e.Err }

// ExitStatus is BaselineFailed's.
func (e *BaselineBuildError) ExitStatus() verdict.Exit { return verdict.BaselineFailed.Exit() }

// patchDetails is what provenance keeps of each applied patch.
func patchDetails(ps []*patches.Patch) []results.PatchInfo {
	var out []results.PatchInfo
	for _, p := range ps {
		out = append(out, results.PatchInfo{Name: p.Name, SHA256: p.SHA256, Subject: p.Subject, Author: p.Author, MessageID: p.MessageID})
	}
	return out
}

// selftestsInTree keeps the gate tests of names that src's tree has,
// reporting the others.
func selftestsInTree(ctx context.Context, b *kernel.Builder, src kernel.Source, names []string, report progress.Reporter) ([]string, error) {
	tree, _, err := b.Pristine(ctx, src)
	if err != nil {
		return nil, err
	}
	have, missing, err := selftests.InTree(tree, names)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		report("selftests: %s not in %s (%s has: %s); the gate runs %s",
			strings.Join(missing, ", "), src, selftests.SuiteDir, strings.Join(mustAvailable(tree), ", "), orNone(have))
	}
	return have, nil
}

func mustAvailable(tree string) []string {
	avail, _ := selftests.Available(tree)
	return avail
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none of them"
	}
	return strings.Join(names, " ")
}

// buildSelftests builds the cgroup selftests of src's pristine tree and
// returns them as image files.
func buildSelftests(ctx context.Context, b *kernel.Builder, src kernel.Source, cacheDir string, names []string, report progress.Reporter) ([]initramfs.File, error) {
	tree, id, err := b.Pristine(ctx, src)
	if err != nil {
		return nil, err
	}
	compiler, err := kernel.Compiler(ctx)
	if err != nil {
		return nil, err
	}
	sb := &selftests.Builder{CacheDir: cacheDir, Progress: report}
	suite, err := sb.Build(ctx, tree, id, compiler, names)
	if err != nil {
		return nil, err
	}
	var files []initramfs.File
	for _, bin := range suite.Binaries {
		files = append(files, initramfs.File{Name: strings.TrimPrefix(selftests.GuestDir, "/") + "/" + bin.Name, Path: bin.Path})
	}
	for _, f := range suite.Support {
		files = append(files, initramfs.File{Name: strings.TrimPrefix(f.Name, "/"), Path: f.Path})
	}
	report("cgroup selftests %s: %s", suite.Key, strings.Join(names, " "))
	return files, nil
}

// buildTargets builds the named kselftest targets of src's pristine tree
// and returns their files as image files and their tests.
func buildTargets(ctx context.Context, b *kernel.Builder, src kernel.Source, cacheDir string, names []string, report progress.Reporter) ([]initramfs.File, []string, error) {
	tree, id, err := b.Pristine(ctx, src)
	if err != nil {
		return nil, nil, err
	}
	compiler, err := kernel.Compiler(ctx)
	if err != nil {
		return nil, nil, err
	}
	sb := &selftests.Builder{CacheDir: cacheDir, Progress: report}
	targets, err := sb.BuildTargets(ctx, tree, id, compiler, names)
	if err != nil {
		return nil, nil, err
	}
	files, err := sb.TargetFiles(targets)
	if err != nil {
		return nil, nil, err
	}
	var tests []string
	for _, t := range targets {
		tests = append(tests, t.Tests...)
		report("kselftest target %s: %d tests (%s)", t.Name, len(t.Tests), strings.Join(t.Tests, " "))
	}
	return files, tests, nil
}

// addFiles adds more to files, but not a second file at a path files has
// (bash, which the cgroup scripts and the targets' both bring).
func addFiles(files, more []initramfs.File) []initramfs.File {
	for _, f := range more {
		if !slices.ContainsFunc(files, func(g initramfs.File) bool { return g.Name == f.Name }) {
			files = append(files, f)
		}
	}
	return files
}

// Source builds the kernel source the config names: the base.
func Source(k config.Kernel) (kernel.Source, error) {
	switch k.Source {
	case "debian":
		return kernel.DebianSource{Package: k.DebianPackage}, nil
	case "git":
		return kernel.GitSource{Tree: k.GitTree, Ref: k.GitRef, AllowDirty: k.AllowDirty}, nil
	}
	return nil, fmt.Errorf("kernel.source %q: want debian or git", k.Source)
}

// VariantSource is the base, or the variant's own ref of kernel.git_tree.
func VariantSource(k config.Kernel, v *patches.Variant) (kernel.Source, error) {
	if v.Ref == "" {
		return Source(k)
	}
	if k.Source != "git" {
		return nil, fmt.Errorf("variant %s names ref %q, but kernel.source is %s: set kernel.source: git and kernel.git_tree", v.Name, v.Ref, k.Source)
	}
	return kernel.GitSource{Tree: k.GitTree, Ref: v.Ref, AllowDirty: k.AllowDirty}, nil
}

// Executor runs the cells of a prepared experiment into a store.
type Executor struct {
	Store results.Store
	// Cells runs the scheduled cells: here (Local) or on a cluster.
	Cells CellExecutor
	// Settings are the cells' limits and image (see Settings).
	Settings CellSettings
	// ArtifactsDir gets a run-N directory per run (config.ArtifactsDir).
	ArtifactsDir string
	Report       progress.Reporter
}

// Execute creates the run, runs every cell interleaved and finishes the
// run. It returns the run ID; on Ctrl-C (ctx cancelled) the run is stored
// as interrupted and ctx's error is returned with its ID.
func (e *Executor) Execute(ctx context.Context, cfg *config.Config, p *Prepared) (int64, error) {
	if cfg.Seed == 0 {
		// Recorded in the run's stored config: the order can be replayed.
		c := *cfg
		c.Seed = uint64(time.Now().UnixNano())
		cfg = &c
	}
	run := &results.Run{
		Experiment: cfg.Experiment, Family: p.Family.Name, Baseline: p.Family.Baseline,
		Variants: p.Names(), StartedAt: time.Now().UTC(), Status: results.RunRunning,
		Config: cfg.YAML(), Host: HostInfo(),
	}
	// Store writes use their own context: a Ctrl-C must not lose them.
	if err := e.Store.CreateRun(context.Background(), run); err != nil {
		return 0, err
	}
	job := &CellJob{
		RunID: run.ID, Cells: Schedule(p.Names(), cfg.Repetitions, Order(cfg.Order), cfg.Seed),
		Variants: p.Variants, AgentCmd: p.AgentCmd, Settings: e.Settings,
		ArtifactsDir: filepath.Join(e.ArtifactsDir, fmt.Sprintf("run-%d", run.ID)),
	}
	return run.ID, e.finish(ctx, run.ID, job, len(job.Cells))
}

// finish runs job's cells and finishes the run, which then holds want
// cells in all: complete (naming cells not ok), interrupted on Ctrl-C,
// failed on an error; left running when the executor detached.
func (e *Executor) finish(ctx context.Context, runID int64, job *CellJob, want int) error {
	bg := context.Background()
	if err := e.Cells.RunCells(ctx, job, e.Store); err != nil {
		if errors.Is(err, ErrDetached) {
			if derr := e.Store.DetachRun(bg, runID); derr != nil {
				return derr
			}
			return err
		}
		if ctx.Err() != nil {
			e.Store.FinishRun(bg, runID, results.RunInterrupted, "interrupted: "+ctx.Err().Error())
			return ctx.Err()
		}
		e.Store.FinishRun(bg, runID, results.RunFailed, err.Error())
		return err
	}
	stored, err := e.Store.Results(bg, runID)
	if err != nil {
		return err
	}
	return completeRun(bg, e.Store, runID, stored, want)
}

// Resume finishes an interrupted (or failed) run: p must build the very
// kernels the run measured (compared by kernel key), and only the cells
// the run has no result for are run, in the run's own order and seed, into
// the same run. A cell that was in flight when the run stopped (stored as
// incomplete) runs again; its incomplete record is kept as the cell's
// history (results.Store.History), no longer among its results.
func (e *Executor) Resume(ctx context.Context, runID int64, p *Prepared) error {
	bg := context.Background()
	run, err := e.Store.GetRun(bg, runID)
	if err != nil {
		return err
	}
	if !run.Status.Resumable() {
		return fmt.Errorf("run %d is %s: only an interrupted or failed run can be resumed", runID, run.Status)
	}
	done, err := e.doneCells(bg, run, p)
	if err != nil {
		return err
	}
	sched, err := StoredSchedule(run.Config)
	if err != nil {
		return fmt.Errorf("run %d: %w", runID, err)
	}
	if err := e.Store.ReopenRun(bg, runID); err != nil {
		return err
	}
	return e.runMissing(ctx, runID, p, Schedule(p.Names(), sched.Repetitions, Order(sched.Order), sched.Seed), done, "resuming run %d: %d of %d cells to run")
}

// runMissing runs the cells of all that done has no result for into
// reopened run runID and finishes it, saying so with say (a format taking
// the run, the cells to run and all cells).
func (e *Executor) runMissing(ctx context.Context, runID int64, p *Prepared, all []Cell, done map[int]bool, say string) error {
	var missing []Cell
	for _, c := range all {
		if !done[c.Seq] {
			missing = append(missing, c)
		}
	}
	e.Report(say, runID, len(missing), len(all))
	job := &CellJob{
		RunID: runID, Cells: missing, Variants: p.Variants, AgentCmd: p.AgentCmd, Settings: e.Settings,
		ArtifactsDir: filepath.Join(e.ArtifactsDir, fmt.Sprintf("run-%d", runID)),
	}
	return e.finish(ctx, runID, job, len(all))
}

// doneCells checks that p builds the very variants and kernels stored run
// measured (a resume or an extension measures into it with the same
// kernels) and returns the cells it has a result for, by sequence number;
// a cell stored incomplete (in flight when the run stopped) is not done.
func (e *Executor) doneCells(ctx context.Context, run *results.Run, p *Prepared) (map[int]bool, error) {
	if got, want := strings.Join(p.Names(), ","), strings.Join(run.Variants, ","); got != want {
		return nil, fmt.Errorf("run %d measured variants %s; this configuration has %s: resume with the configuration the run was started with", run.ID, want, got)
	}
	stored, err := e.Store.Results(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	keys := map[string]string{}
	for _, v := range p.Variants {
		keys[v.Name] = v.Provenance.KernelKey
	}
	done := map[int]bool{}
	for _, r := range stored {
		if k := r.Provenance.KernelKey; k != "" && k != keys[r.Variant] {
			return nil, fmt.Errorf("run %d measured %s with kernel %s; this configuration builds %s: resume with the configuration (and source) the run was started with", run.ID, r.Variant, k, keys[r.Variant])
		}
		if r.Status != results.StatusIncomplete {
			done[r.Seq] = true
		}
	}
	return done, nil
}

// ScheduleSettings are what fix a run's cell order.
type ScheduleSettings struct {
	Repetitions int    `yaml:"repetitions"`
	Order       string `yaml:"order"`
	Seed        uint64 `yaml:"seed"`
}

// StoredSchedule reads the order settings from a run's stored config.
func StoredSchedule(configYAML string) (ScheduleSettings, error) {
	var s ScheduleSettings
	if err := yaml.Unmarshal([]byte(configYAML), &s); err != nil {
		return s, fmt.Errorf("stored config: %w", err)
	}
	if s.Repetitions < 1 {
		return s, fmt.Errorf("stored config has no repetitions")
	}
	return s, nil
}

// NotOK says which of a run's cells were not ok ("cells not ok: 2
// crashed, 1 infra_error"), or "" when all want of them are.
func NotOK(rs []*results.Result, want int) string {
	counts := map[string]int{} // a status, or "missing"
	ok := 0
	for _, r := range rs {
		if r.Status.OK() {
			ok++
		} else {
			counts[string(r.Status)]++
		}
	}
	if missing := want - len(rs); missing > 0 {
		counts["missing"] = missing
	}
	if ok >= want || len(counts) == 0 {
		return ""
	}
	var parts []string
	for s, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(parts)
	return "cells not ok: " + strings.Join(parts, ", ")
}

// selftestSummary counts the tests that did not pass and names those no
// diagnosis in known.yaml explains, so that whoever watches a run sees a
// new failure when its cell ends rather than at the gate's verdict.
func selftestSummary(results []agentproto.SelftestResult, known map[string]compare.KnownFailure, release string) string {
	fails, flaky := 0, 0
	var unexplained []string
	for _, st := range results {
		switch st.Outcome {
		case agentproto.SelftestFail, agentproto.SelftestError, agentproto.SelftestTimeout:
			fails++
			if kf, ok := known[st.Key()]; !ok || !kf.AppliesTo(release) {
				unexplained = append(unexplained, st.Key())
			}
		case agentproto.SelftestFlaky:
			flaky++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "selftests=%d (%d not passing", len(results), fails)
	switch {
	case fails > 0 && len(unexplained) == 0:
		b.WriteString(", all known")
	case len(unexplained) > 0:
		const named = 3
		fmt.Fprintf(&b, ", %d unexplained: %s", len(unexplained), strings.Join(unexplained[:min(named, len(unexplained))], " "))
		if len(unexplained) > named {
			b.WriteString(" ...")
		}
	}
	if flaky > 0 {
		fmt.Fprintf(&b, ", %d flaky: failed, then passed on a rerun", flaky)
	}
	b.WriteString(")")
	return b.String()
}

// SummaryLine is a cell's one-line outcome for progress output.
func SummaryLine(r *results.Result) string {
	if !r.Status.OK() {
		return ": " + lines.First(r.Error)
	}
	// The workload's first two judged metrics (each workload reports its
	// headline first), then the irqs-off worst.
	var parts []string
	n := 0
	for _, m := range r.Metrics {
		if m.Direction != agentproto.Informational && n < 2 && m.Name != "irqsoff_worst_us" {
			parts = append(parts, fmt.Sprintf("%s=%.0f", m.Name, m.Value))
			n++
		}
	}
	for _, m := range r.Metrics {
		if m.Name == "irqsoff_worst_us" {
			parts = append(parts, fmt.Sprintf("%s=%.0f", m.Name, m.Value))
		}
	}
	if len(r.Selftests) > 0 {
		parts = append(parts, selftestSummary(r.Selftests, selftests.KnownFailures(), compare.Release(r.Provenance.GuestKernel)))
	}
	if r.IrqsoffHolder != "" {
		parts = append(parts, "worst held by "+r.IrqsoffHolder)
	}
	return " " + strings.Join(parts, " ")
}

// HostInfo describes this machine for provenance.
func HostInfo() results.Host {
	h := results.Host{Cores: runtime.NumCPU(), Kregress: buildinfo.Version(Version), GoVersion: runtime.Version()}
	h.Hostname, _ = os.Hostname()
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.SplitN(string(data), "\n", 2)[0], "MemTotal: %d kB", &kb)
		h.MemoryMB = kb / 1024
	}
	return h
}
