// Package config resolves kregress's configuration: host defaults, the
// built-in default experiment, then a YAML file, then KREGRESS_*
// environment variables, then flags. The YAML (default and file) is
// decoded once, strictly, by yaml.v3 through the fields' yaml tags, so a
// typo or a wrong type is an error naming the key and its line; viper
// lays the environment and the flags over it through the same tags: one
// set of names for the file, env, flags and the rendered YAML. Validate
// checks ranges before anything is built; each executor declares and
// checks its own block (RegisterExecutor, ExecutorInfo.Block).
//
// Files: config.go the schema (Config and its sections) and Validate;
// loader.go reading a file, Load's layers and the keys found by
// reflection; experiments.go the built-in experiments and the workload's
// default primary metrics; executors.go the executors' registry and the
// executor section; blocks.go each registered kind's own block (decoded,
// laid out among the keys, printed); flags.go the keys' flags and help; plain.go errors in the user's
// words; describe.go the built-in experiments' descriptions.
package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/guest/contention"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/bench"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results/store"
)

// Duration is a time.Duration written as "10s" in YAML, env and flags.
type Duration time.Duration

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalText parses "10s", "2m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%q is not a duration (use e.g. 10s, 2m)", string(b))
	}
	*d = Duration(v)
	return nil
}

// UnmarshalYAML parses a scalar duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if err := d.UnmarshalText([]byte(n.Value)); err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	return nil
}

// MarshalYAML writes "10s".
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MaxVCPUs bounds a guest's vCPUs (vm.cpus, vm.max_cpus and each count
// of vm.cpus_sweep): QEMU's q35 machine takes no more without x2APIC
// tuning, and a larger figure is a typo.
const MaxVCPUs = 512

// MaxSweepCounts bounds vm.cpus_sweep's list: each count is a boot of
// every variant per repetition.
const MaxSweepCounts = 16

// MaxRepetitions bounds the boots per variant (repetitions, noise's
// --boots): each is a boot of every variant, minutes under TCG, and a
// figure past it is a typo, not a plan.
const MaxRepetitions = 1000

// Config is the whole configuration of a run.
type Config struct {
	Experiment string `yaml:"experiment"`
	Family     string `yaml:"family"`
	// Families defines kernel states in the experiment file itself
	// (same shape as patches/manifest.yaml; patch paths relative to the
	// file). Read from the file only, never from env or flags.
	Families map[string]*patches.Family `yaml:"families,omitempty"`
	// Patches is a directory with a manifest.yaml of the user's own
	// families, relative to the experiment file; empty: the built-in set.
	Patches     string   `yaml:"patches"`
	Variants    []string `yaml:"variants"`
	Repetitions int      `yaml:"repetitions"`
	// Order of the cells within each repetition: fixed (default: the
	// variants' order, A B A B) or shuffled (with Seed). Seed 0 picks one
	// at run time; the stored configuration records the seed used.
	Order      string `yaml:"order"`
	Seed       uint64 `yaml:"seed"`
	CacheDir   string `yaml:"cache_dir"`
	ResultsDir string `yaml:"results_dir"`
	// Store is where runs are kept: a PostgreSQL DSN (postgres://...) or
	// a SQLite file; empty means results_dir/kregress.db.
	Store string `yaml:"store"`
	// NoiseFloorPct: per metric, changes smaller than this are never
	// called regressions or improvements.
	NoiseFloorPct map[string]float64 `yaml:"noise_floor_pct"`
	// RuleOut: a comparison passes only when every metric's boots rule
	// out a regression this many times worse (compare.Options.RuleOut);
	// .inf: off.
	RuleOut float64 `yaml:"rule_out"`
	// LoadBound: when both sides of a comparison keep the host's clock
	// and one side's host was more than this many times as contended as
	// the other's, no timing metric is called a regression
	// (compare.Options.LoadBound); .inf: off.
	LoadBound float64 `yaml:"load_bound"`
	// PrimaryMetrics are judged first, as their own false-discovery
	// family; empty: the workload's own (its descriptor's Primary, guest/workload).
	PrimaryMetrics []string `yaml:"primary_metrics"`
	// GatingMetrics must have their rule_out margin ruled out for a pass
	// (compare.Options.Gating); empty: the primary metrics and every
	// higher-is-better metric. The others are watched.
	GatingMetrics []string `yaml:"gating_metrics"`
	// PrimaryFallback is written by kregress, not the user: why the run
	// judges its workload's FallbackPrimary instead of the workload's own
	// primary (the tree cannot produce it). Stored with the run, so every
	// verdict judged from it says so.
	PrimaryFallback string `yaml:"primary_fallback,omitempty"`
	// GateOnly: the experiment measures nothing (its figures are shown,
	// never judged); only failures, kernel reports and selftests are.
	GateOnly  bool      `yaml:"gate_only"`
	Agent     string    `yaml:"agent"`
	Busybox   string    `yaml:"busybox"`
	Kernel    Kernel    `yaml:"kernel"`
	VM        VM        `yaml:"vm"`
	Workload  Workload  `yaml:"workload"`
	Selftests Selftests `yaml:"selftests"`
	Debug     Debug     `yaml:"debug"`
	Executor  Executor  `yaml:"executor"`
	Bisect    Bisect    `yaml:"bisect"`
	// Looks bounds what the further looks of a run (or of an
	// experiment's night) may cost; unset (zero) bounds nothing, and
	// stays out of the stored configuration.
	Looks Looks `yaml:"looks,omitempty"`
	// Dir is the experiment file's directory (relative paths in it are
	// relative to it); the working directory for the built-in default.
	Dir string `yaml:"-"`
	// BenchmarkHostDryRun is the command line's --benchmark-host-dry-run:
	// the benchmark's program (when its declaration says host_dry_run)
	// may run once on the host before anything builds. Never a key of
	// the experiment file, the environment or a stored configuration:
	// an experiment file is outside input, and runs no code on the host
	// unless the user asks by flag.
	BenchmarkHostDryRun bool `yaml:"-"`
	// BenchmarkCopyFrom are the command line's --benchmark-copy-from
	// directories (absolute): a benchmark's copy may take a host path
	// below one of them, besides those below Dir. Never a key, for the
	// same reason.
	BenchmarkCopyFrom []string `yaml:"-"`
}

// Bisect tunes how a bisect spends the host (not what it decides).
type Bisect struct {
	// Speculate: how many steps ahead a metric bisect builds the commits
	// it may look at next while a look boots: auto (derived from the
	// cores the guests leave free: bisect.SpeculationFor), 0, 1 or 2.
	Speculate string `yaml:"speculate"`
}

// Looks is the budget of the further looks a measurement takes while a
// metric is unsure (judging.Budget): another round is not started when
// its boots, or its estimated minutes, would take the measurement past
// these. 0: no bound. Alpha stays split over the planned looks, so a
// budget only ever makes the verdict more cautious.
type Looks struct {
	// MaxMinutes bounds the wall time of the command's measurement (a
	// run's, or an experiment's night), its first look included.
	MaxMinutes int `yaml:"max_minutes,omitempty"`
	// MaxBoots bounds the measurement's boots, every variant's.
	MaxBoots int `yaml:"max_boots,omitempty"`
}

// MaxLooksMinutes and MaxLooksBoots bound looks.max_minutes and
// looks.max_boots: past a week, or a hundred thousand boots, the figure
// is a typo, not a budget.
const (
	MaxLooksMinutes = 7 * 24 * 60
	MaxLooksBoots   = 100000
)

// Selftests is the correctness gate: the kernel's own cgroup selftests,
// built from the same source tree and run in each variant's guest after
// the workload.
// Debug is the correctness gate's debug pass: after the measured run,
// every variant is built again with the debug fragments (lockdep, atomic
// sleep and spinlock checks), booted once through a short workload and
// the selftests, and a kernel report that the baseline's debug kernel does
// not print flags the candidate. Its figures mean nothing (the checks slow
// every lock), so only failures, reports and selftests are judged.
type Debug struct {
	// Pass: auto (on for families whose candidates change locking), on,
	// off.
	Pass      string   `yaml:"pass"`
	Fragments []string `yaml:"fragments"`
	Duration  Duration `yaml:"duration"`
}

type Selftests struct {
	// Binaries are tools/testing/selftests/cgroup programs (test_core,
	// ...). Empty: the family's gate tests (its manifest's selftests),
	// else every cgroup C test; variants.Resolve fills it in.
	Binaries []string `yaml:"binaries"`
	// Targets are kselftest targets of the tree (sched, futex, timers,
	// ...), built with kselftest's own make install and run test by test
	// beside Binaries. Naming targets and no binaries makes the targets
	// the whole gate.
	Targets []string `yaml:"targets,omitempty"`
	// TargetConfigs: merge (the default, also when empty) merges each
	// named target's own config fragment from the tree
	// (tools/testing/selftests/<target>/config, and config.x86_64) into
	// every variant's kernel, as kselftest's kselftest-merge and KernelCI
	// do, so the targets' tests find the options they need; off builds
	// the kernels without them. Empty rather than "merge" by default so
	// a stored configuration without targets is unchanged.
	TargetConfigs TargetConfigs `yaml:"target_configs,omitempty"`
	// Repetitions: run them in the first N repetitions of each variant;
	// 0 turns the gate off.
	Repetitions int `yaml:"repetitions"`
	// Timeout bounds each binary.
	Timeout Duration `yaml:"timeout"`
	// RerunFailures: a binary with a failing test (other than a known
	// one) runs once more in the same boot; a failure that does not
	// repeat is reported flaky, not failed.
	RerunFailures bool `yaml:"rerun_failures"`
}

// TargetConfigs says whether the kselftest targets' config fragments go
// into the kernels (selftests.target_configs).
type TargetConfigs string

const (
	TargetConfigsMerge TargetConfigs = "merge"
	TargetConfigsOff   TargetConfigs = "off"
)

// MergeTargetConfigs says whether the kernels get the config fragments of
// the named kselftest targets: they are named and the experiment did not
// turn the merge off. Whether the gate runs does not matter: a metric
// bisect turns it off and must build (and find cached) the kernels the
// run it bisects measured.
func (s Selftests) MergeTargetConfigs() bool {
	return len(s.Targets) > 0 && s.TargetConfigs != TargetConfigsOff
}

// Kernel says which tree to build and how.
type Kernel struct {
	Source        string `yaml:"source"` // debian | git
	DebianPackage string `yaml:"debian_package"`
	GitTree       string `yaml:"git_tree"`
	GitRef        string `yaml:"git_ref"`
	// AllowDirty measures a dirty git_tree at HEAD as HEAD plus its
	// uncommitted changes (recorded); otherwise a dirty tree is refused.
	AllowDirty bool `yaml:"allow_dirty"`
	// Fuzz lets up to N context lines of each hunk differ; 0 is strict.
	Fuzz       int      `yaml:"fuzz"`
	BaseConfig string   `yaml:"base_config"`
	Fragments  []string `yaml:"fragments"`
	Jobs       int      `yaml:"jobs"`
	CCache     bool     `yaml:"ccache"`

	// AllowSymlinks lets patches create symlinks (mode 120000), refused
	// by default: a link out of the tree is a way out for a later patch.
	AllowSymlinks bool `yaml:"allow_symlinks"`
}

// VM shapes the guest.
type VM struct {
	QEMU    string `yaml:"qemu"`
	Accel   string `yaml:"accel"` // auto | kvm | tcg
	CPUs    int    `yaml:"cpus"`
	MaxCPUs int    `yaml:"max_cpus"`
	// CPUsSweep, when set, measures every variant at each of these vCPU
	// counts in one run (the cells of each count compared apart, never
	// across counts); vm.cpus then sizes only the accelerator's probe.
	// Empty (the default) keeps the stored configuration of a run without
	// a sweep as it was.
	CPUsSweep   []int    `yaml:"cpus_sweep,omitempty"`
	MemoryMB    int      `yaml:"memory_mb"`
	BootTimeout Duration `yaml:"boot_timeout"`
	Cmdline     string   `yaml:"cmdline"`
	// PanicOnWarn boots every guest with panic_on_warn=1: a WARNING then
	// ends the cell as crashed (with its console), as syzkaller runs.
	PanicOnWarn bool `yaml:"panic_on_warn"`
	// Clock is the guest's sense of time (ClockAuto, ClockHost,
	// ClockICount; empty reads as ClockAuto).
	Clock       Clock `yaml:"clock"`
	ICountShift int   `yaml:"icount_shift"`
}

// Clock is how a guest keeps time, which decides what its timings
// measure. Under TCG the host clock makes every guest-timed figure
// (throughput, latency, lock holds, irqs-off) partly a measure of how
// busy the host was: boots of one kernel spread widely and move with the
// host's load between sessions. The instruction-counting clock counts
// what the guest executed instead, whatever the host did meanwhile.
type Clock string

const (
	// ClockAuto is ClockICount under TCG and ClockHost under KVM (where
	// icount does not exist): the clock that does not depend on the
	// host's load wherever there is one.
	ClockAuto Clock = "auto"
	// ClockHost is real time; under TCG every vCPU runs on its own host
	// thread.
	ClockHost Clock = "host"
	// ClockICount (TCG only): one host thread runs all vCPUs in turns
	// and the guest's clock advances by 2^ICountShift ns per instruction
	// executed, so a guest-timed figure no longer depends on how fast
	// the host ran it.
	ClockICount Clock = "icount"
)

// ICountRequired reports whether the configuration insists on the
// instruction-counting clock (and so on TCG).
func (v VM) ICountRequired() bool { return v.Clock == ClockICount }

// ICountUnder reports whether guests run with the instruction-counting
// clock once accel ("kvm" or "tcg") is chosen: always under TCG unless
// the host clock was asked for, never under KVM.
func (v VM) ICountUnder(accel string) bool {
	return accel != "kvm" && v.Clock != ClockHost
}

// Workload is what kagent runs in every guest.
type Workload struct {
	Name     string            `yaml:"name"`
	Duration Duration          `yaml:"duration"`
	Params   map[string]string `yaml:"params"`
	// Benchmark declares the program workload benchmark runs (its
	// image contents, output parser and metrics); file only.
	Benchmark *bench.Decl `yaml:"benchmark,omitempty"`
	// LockContention names kernel locks (static ones, by symbol) whose
	// contention each boot records over the whole run: per lock, the
	// waits and their p50, p99 and max (guest/contention), judged like
	// the workload's own metrics.
	LockContention []string `yaml:"lock_contention,omitempty"`
	// LockContentionUnder names kernel functions: the contention of any
	// lock whose wait began with one of them among the waiter's callers.
	LockContentionUnder []string `yaml:"lock_contention_under,omitempty"`
	// IrqsoffHolder is part of a kernel function's name: the share of
	// sampling windows whose worst irqs-off section it held is reported
	// (irqsoff_holder_windows_pct), beside the workload's own holder.
	IrqsoffHolder string `yaml:"irqsoff_holder,omitempty"`
}

// Specs are the metrics a run of w reports: its workload's (the
// descriptor's, in report order; a declared benchmark's own), then
// each named lock's contention; nil for a workload the registry does not
// know.
func (w Workload) Specs() []metrics.Spec {
	specs := workload.Metrics(w.Name)
	if w.Benchmark != nil {
		specs = w.Benchmark.Specs()
	}
	if specs == nil {
		return nil
	}
	for _, l := range w.LockContention {
		specs = append(specs, contention.Specs(l)...)
	}
	for _, fn := range w.LockContentionUnder {
		specs = append(specs, contention.UnderSpecs(fn)...)
	}
	if w.IrqsoffHolder != "" {
		specs = append(specs, sampler.HolderSpec(w.IrqsoffHolder))
	}
	return specs
}

// Spec finds one of w's metrics by name.
func (w Workload) Spec(name string) (metrics.Spec, bool) {
	for _, s := range w.Specs() {
		if s.Name == name {
			return s, true
		}
	}
	return metrics.Spec{}, false
}

// Validate checks ranges and choices, section by section; the error
// names the key.
func (c *Config) Validate() error {
	for _, check := range []func() error{
		c.validateExperiment, c.validateKernel, c.validateVM, c.validateWorkload,
		c.validateExecutor, c.validateDebug, c.validateSelftests, c.validateBisect, c.validateLooks, c.checkMetricNames,
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// Invalid is the error for a bad value of key (a dotted key, as in the
// file): Load adds where the value came from (the file's line, the flag
// or the environment variable).
func Invalid(key, format string, args ...any) error {
	return &FileError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// validateExperiment checks the top-level keys: what is measured, how
// often, in which order, and the noise floors.
func (c *Config) validateExperiment() error {
	// A noise floor is a percentage a change must exceed: Inf or NaN
	// would silence its metric for good, a negative one means nothing.
	for name, v := range c.NoiseFloorPct {
		if name == "" || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return Invalid("noise_floor_pct", "%q: %g: want a metric name and a finite, non-negative percentage", name, v)
		}
	}
	if c.RuleOut != 0 && (math.IsNaN(c.RuleOut) || c.RuleOut <= 1) {
		return Invalid("rule_out", "%g: want a ratio above 1 (1.5: a pass must rule out any metric 1.5 times worse; .inf: off)", c.RuleOut)
	}
	if c.LoadBound != 0 && (math.IsNaN(c.LoadBound) || c.LoadBound <= 1) {
		return Invalid("load_bound", "%g: want a ratio above 1 (1.25: timings are not judged when one side's host was 1.25 times as contended as the other's; .inf: off)", c.LoadBound)
	}
	switch {
	case c.Experiment == "":
		return Invalid("experiment", "must not be empty")
	case c.Family == "":
		return Invalid("family", "must not be empty")
	case c.Repetitions < 1 || c.Repetitions > MaxRepetitions:
		return Invalid("repetitions", "%d is out of range 1..%d", c.Repetitions, MaxRepetitions)
	case c.Order != "shuffled" && c.Order != "fixed":
		return Invalid("order", "%q is neither shuffled nor fixed", c.Order)
	}
	return nil
}

// validateKernel checks kernel.*.
func (c *Config) validateKernel() error {
	k := c.Kernel
	switch {
	case k.Source != "debian" && k.Source != "git":
		return Invalid("kernel.source", "%q: want debian or git", k.Source)
	case k.Source == "git" && k.GitTree == "":
		return Invalid("kernel.git_tree", "source git needs kernel.git_tree (a local kernel git repository); kernel.git_ref defaults to HEAD")
	case k.Fuzz < 0 || k.Fuzz > 3:
		return Invalid("kernel.fuzz", "%d is out of range 0..3 (context lines of a hunk allowed to differ)", k.Fuzz)
	case k.Source == "debian" && k.DebianPackage == "":
		return Invalid("kernel.debian_package", "must name a linux-source package")
	case k.BaseConfig == "":
		return Invalid("kernel.base_config", "must name a make target such as tinyconfig or defconfig")
	case k.Jobs < 1 || k.Jobs > 1024:
		return Invalid("kernel.jobs", "%d is out of range 1..1024", k.Jobs)
	}
	return nil
}

// validateVM checks vm.*.
func (c *Config) validateVM() error {
	vm := c.VM
	switch {
	case vm.Accel != "auto" && vm.Accel != "kvm" && vm.Accel != "tcg":
		return Invalid("vm.accel", "%q: want auto, kvm or tcg", vm.Accel)
	case vm.CPUs < 1 || vm.CPUs > MaxVCPUs:
		return Invalid("vm.cpus", "%d is out of range 1..%d", vm.CPUs, MaxVCPUs)
	case vm.MaxCPUs != 0 && (vm.MaxCPUs < vm.CPUs || vm.MaxCPUs > MaxVCPUs):
		return Invalid("vm.max_cpus", "%d must be 0 or between vm.cpus (%d) and %d", vm.MaxCPUs, vm.CPUs, MaxVCPUs)
	case vm.Clock != "" && vm.Clock != ClockAuto && vm.Clock != ClockHost && vm.Clock != ClockICount:
		return Invalid("vm.clock", "%q: want auto, host or icount", vm.Clock)
	case vm.ICountRequired() && vm.Accel == "kvm":
		return Invalid("vm.clock", "icount counts instructions that TCG executes; with vm.accel kvm the CPU runs them (use vm.accel tcg or auto)")
	case vm.ICountShift < 0 || vm.ICountShift > 10:
		return Invalid("vm.icount_shift", "%d is out of range 0..10 (2^shift ns of guest time per instruction)", vm.ICountShift)
	case vm.MemoryMB < 128 || vm.MemoryMB > 1<<20:
		return Invalid("vm.memory_mb", "%d is out of range 128..1048576", vm.MemoryMB)
	case vm.BootTimeout.D() < 5*time.Second:
		return Invalid("vm.boot_timeout", "%s is too short (at least 5s)", vm.BootTimeout)
	}
	return c.validateSweep()
}

// validateSweep checks vm.cpus_sweep: two or more distinct counts, each
// a guest vm.max_cpus (when set) has room for. Parallel local guests are
// pinned to vm.cpus host cores each, which a sweep's larger counts would
// overrun, so a sweep runs its guests one at a time.
func (c *Config) validateSweep() error {
	counts := c.VM.CPUsSweep
	if len(counts) == 0 {
		return nil
	}
	if len(counts) < 2 || len(counts) > MaxSweepCounts {
		return Invalid("vm.cpus_sweep", "%v: name 2 to %d vCPU counts (one count is vm.cpus)", counts, MaxSweepCounts)
	}
	seen := map[int]bool{}
	for _, n := range counts {
		switch {
		case n < 1 || n > MaxVCPUs:
			return Invalid("vm.cpus_sweep", "%d is out of range 1..%d", n, MaxVCPUs)
		case seen[n]:
			return Invalid("vm.cpus_sweep", "%d is listed twice: each count is measured once per repetition", n)
		case c.VM.MaxCPUs != 0 && n > c.VM.MaxCPUs:
			return Invalid("vm.cpus_sweep", "%d is more than vm.max_cpus (%d): every count's guest has vm.max_cpus possible CPUs", n, c.VM.MaxCPUs)
		}
		seen[n] = true
	}
	if c.Executor.Parallel > 1 {
		return Invalid("vm.cpus_sweep", "runs its guests one at a time: executor.parallel %d pins each guest to vm.cpus host cores, which the sweep's counts do not fit (set executor.parallel 1)", c.Executor.Parallel)
	}
	return nil
}

// SweepCounts are the vCPU counts a run of c measures each variant at:
// vm.cpus_sweep's, or none (every cell at vm.cpus).
func (c *Config) SweepCounts() []int { return c.VM.CPUsSweep }

// OneCount refuses a sweep for a command whose answer is one call on
// one set of boots (a night against its baseline night, a bisect step):
// its counts would be pooled into the call.
func (c *Config) OneCount(what string) error {
	if len(c.VM.CPUsSweep) == 0 {
		return nil
	}
	return Invalid("vm.cpus_sweep", "%v: %s measures one vCPU count: set vm.cpus (a sweep is for kregress run)", c.VM.CPUsSweep, what)
}

// validateWorkload checks workload.* (its params are checked against
// the workload's own definition elsewhere, before any build).
func (c *Config) validateWorkload() error {
	switch {
	case c.Workload.Name == "":
		return Invalid("workload.name", "must not be empty")
	case c.Workload.Duration.D() < time.Second:
		return Invalid("workload.duration", "%s is too short (at least 1s)", c.Workload.Duration)
	}
	if len(c.Workload.LockContention) > 0 {
		if _, err := contention.ParseLocks(strings.Join(c.Workload.LockContention, ",")); err != nil {
			return Invalid("workload.lock_contention", "%v", err)
		}
	}
	if len(c.Workload.LockContentionUnder) > 0 {
		if _, err := contention.ParseLocks(strings.Join(c.Workload.LockContentionUnder, ",")); err != nil {
			return Invalid("workload.lock_contention_under", "%v", err)
		}
	}
	if h := c.Workload.IrqsoffHolder; h != "" {
		if err := sampler.CheckHolder(h); err != nil {
			return Invalid("workload.irqsoff_holder", "%q: %v", h, err)
		}
	}
	return c.validateBenchmark()
}

// validateBenchmark checks workload.benchmark without touching the host
// (pipeline.Preflight then resolves the program and may dry-run it): it
// is given exactly when the workload is the benchmark one.
func (c *Config) validateBenchmark() error {
	d := c.Workload.Benchmark
	switch {
	case d == nil && c.Workload.Name == bench.Name:
		return Invalid("workload.name", "workload %s needs workload.benchmark: the program, its output format and metrics (docs/workloads.md)", bench.Name)
	case d == nil:
		return nil
	case c.Workload.Name != bench.Name:
		return Invalid("workload.benchmark", "is for workload.name %s, not %s", bench.Name, c.Workload.Name)
	}
	d.WithDefaults()
	// Paths relative to the experiment file become absolute, so the
	// configuration stored with a run reproduces it from anywhere.
	d.Program = fileRelative(c.Dir, d.Program)
	for i := range d.Copy {
		if d.Copy[i].Host != "" && !filepath.IsAbs(d.Copy[i].Host) && c.Dir != "" {
			d.Copy[i].Host = filepath.Join(c.Dir, d.Copy[i].Host)
		}
	}
	if err := d.Check(); err != nil {
		var be *bench.Error
		if errors.As(err, &be) {
			return &FileError{Line: be.Line, Key: "workload.benchmark." + be.Key, Msg: be.Msg}
		}
		return Invalid("workload.benchmark", "%v", err)
	}
	return nil
}

// validateDebug checks debug.*.
func (c *Config) validateDebug() error {
	d := c.Debug
	switch {
	case d.Pass != "" && d.Pass != "auto" && d.Pass != "on" && d.Pass != "off":
		return Invalid("debug.pass", "%q: want auto, on or off", d.Pass)
	case d.Pass != "off" && len(d.Fragments) == 0:
		return Invalid("debug.fragments", "the debug pass needs at least one fragment (lockdep.config is built in)")
	case d.Pass != "off" && d.Duration.D() < time.Second:
		return Invalid("debug.duration", "%s is too short (at least 1s)", d.Duration)
	}
	return nil
}

// validateSelftests checks selftests.*.
func (c *Config) validateSelftests() error {
	switch {
	case c.Selftests.Repetitions < 0:
		return Invalid("selftests.repetitions", "%d is negative (0 turns the selftests off)", c.Selftests.Repetitions)
	case c.Selftests.Repetitions > 0 && c.Selftests.Timeout.D() < time.Second:
		return Invalid("selftests.timeout", "%s is too short (at least 1s)", c.Selftests.Timeout)
	}
	switch c.Selftests.TargetConfigs {
	case "", TargetConfigsMerge, TargetConfigsOff:
	default:
		return Invalid("selftests.target_configs", "%q: want merge (the targets' config fragments go into the kernels) or off", c.Selftests.TargetConfigs)
	}
	return nil
}

// validateBisect checks bisect.*.
func (c *Config) validateBisect() error {
	switch c.Bisect.Speculate {
	case "", "auto", "0", "1", "2":
		return nil
	}
	return Invalid("bisect.speculate", "%q: want auto, 0, 1 or 2 (steps ahead whose builds may start while a look boots)", c.Bisect.Speculate)
}

// validateLooks checks looks.*.
func (c *Config) validateLooks() error {
	switch l := c.Looks; {
	case l.MaxMinutes < 0 || l.MaxMinutes > MaxLooksMinutes:
		return Invalid("looks.max_minutes", "%d is out of range 0..%d (minutes of wall time a measurement's looks may take; 0: no bound)", l.MaxMinutes, MaxLooksMinutes)
	case l.MaxBoots < 0 || l.MaxBoots > MaxLooksBoots:
		return Invalid("looks.max_boots", "%d is out of range 0..%d (boots a measurement's looks may take, every variant's; 0: no bound)", l.MaxBoots, MaxLooksBoots)
	}
	return nil
}

// checkMetricNames refuses a primary metric or noise floor that names no
// judged metric of the workload (its descriptor, guest/workload, is the
// list): it would silently judge nothing. A workload the registry does
// not know is refused elsewhere (the agent's command line).
func (c *Config) checkMetricNames() error {
	if c.WorkloadMetrics() == nil {
		return nil
	}
	check := func(key, name string) error {
		if s, ok := c.WorkloadMetric(name); !ok || !s.Judged() {
			return Invalid(key, "%q is not a judged metric of workload %s (`kregress metrics %s` lists them)", name, c.Workload.Name, c.Workload.Name)
		}
		return nil
	}
	for _, name := range c.PrimaryMetrics {
		if err := check("primary_metrics", name); err != nil {
			return err
		}
	}
	for _, name := range c.GatingMetrics {
		if err := check("gating_metrics", name); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(c.NoiseFloorPct))
	for name := range c.NoiseFloorPct {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := check("noise_floor_pct", name); err != nil {
			return err
		}
	}
	return nil
}

// StoreSpec is the store to open: Store, or the SQLite file in ResultsDir.
func (c *Config) StoreSpec() string {
	if c.Store != "" {
		return c.Store
	}
	return filepath.Join(c.ResultsDir, "kregress.db")
}

// ArtifactsDir is where runs' artifacts (console logs, agent documents)
// go: results_dir/artifacts for the default store, and a directory of its
// own for any other store, because run IDs are per store: two stores'
// "run 1" must not share (or, on prune, delete) one directory.
func (c *Config) ArtifactsDir() string {
	base := filepath.Join(c.ResultsDir, "artifacts")
	if c.Store == "" || c.Store == filepath.Join(c.ResultsDir, "kregress.db") {
		return base
	}
	h := sha256.Sum256([]byte(c.Store))
	return filepath.Join(base, "store-"+hex.EncodeToString(h[:])[:12])
}

// YAML renders the resolved configuration (stored with every run and
// printed by `kregress config`), the store's password taken out.
func (c *Config) YAML() string {
	redacted := *c
	redacted.Store = store.Redact(c.Store)
	b, _ := yaml.Marshal(&redacted)
	return string(b)
}

// CommentedYAML is YAML followed, as comments, by every key and how to
// set it by flag or environment: what `kregress config` prints.
func (c *Config) CommentedYAML() string {
	var b strings.Builder
	b.WriteString(c.YAML())
	b.WriteString("\n# keys (flag: --KEY with dashes for underscores, e.g. --vm.memory-mb; environment: KREGRESS_<KEY with dots as underscores>, upper case):\n")
	for _, k := range Keys() {
		b.WriteString("#   " + k + "\n")
	}
	return b.String()
}
