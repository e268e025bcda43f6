// Package config resolves kregress's configuration: host defaults, the
// built-in default experiment, then a YAML file, then KREGRESS_*
// environment variables, then flags. The YAML (default and file) is
// decoded once, strictly, by yaml.v3 through the fields' yaml tags, so a
// typo or a wrong type is an error naming the key and its line; viper
// lays the environment and the flags over it through the same tags: one
// set of names for the file, env, flags and the rendered YAML. Validate
// checks ranges before anything is built; each executor checks its own
// block (RegisterExecutor).
package config

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/results/store"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/guest/contention"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results/verdict"
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
	// PrimaryMetrics are judged first, as their own false-discovery
	// family; empty: the workload's own (its descriptor's Primary, guest/workload).
	PrimaryMetrics []string `yaml:"primary_metrics"`
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
	// Dir is the experiment file's directory (relative paths in it are
	// relative to it); the working directory for the built-in default.
	Dir string `yaml:"-"`
}

// Executor says where the cells run: on this host (local, one guest at
// a time or several pinned side by side) or as a Slurm job array.
type Executor struct {
	Kind string `yaml:"kind"` // local, or a kind an executor package registers (RegisterExecutor)
	// Parallel (local): guests at once, each pinned to its own vm.cpus
	// host cores; refused when they would share cores.
	Parallel int `yaml:"parallel"`
	// SharedDir (slurm): a directory every node sees at the same path
	// (NFS): kernels, images, the job file and artifacts go there.
	SharedDir string `yaml:"shared_dir"`
	Slurm     Slurm  `yaml:"slurm"`
	// Kubernetes: the Indexed Job manifest kregress writes (and does
	// not apply) for executor.kind kubernetes.
	Kubernetes Kubernetes `yaml:"kubernetes"`
	// Detach (slurm): return once the array is submitted; the run fills
	// in as its tasks end.
	Detach bool `yaml:"detach"`
}

// Bisect tunes how a bisect spends the host (not what it decides).
type Bisect struct {
	// Speculate: how many steps ahead a metric bisect builds the commits
	// it may look at next while a look boots: auto (derived from the
	// cores the guests leave free: bisect.SpeculationFor), 0, 1 or 2.
	Speculate string `yaml:"speculate"`
}

// Slurm is how cells are submitted to a Slurm cluster.
type Slurm struct {
	Partition string `yaml:"partition"`
	// Options are extra sbatch options, e.g. [--account=kernel, --qos=short].
	Options []string `yaml:"options"`
	// Poll is how often the array's state is read (squeue, scontrol).
	Poll Duration `yaml:"poll"`
}

// Kubernetes shapes the Indexed Job of executor.kind kubernetes.
type Kubernetes struct {
	// Image has kregress on PATH and qemu-system-x86 installed.
	Image     string `yaml:"image"`
	Namespace string `yaml:"namespace"`
	// SharedClaim is the PersistentVolumeClaim (ReadWriteMany) holding
	// shared_dir, mounted at the same path in every pod.
	SharedClaim string `yaml:"shared_claim"`
	// StoreSecret is a Secret whose key "dsn" is the team store's DSN.
	StoreSecret string `yaml:"store_secret"`
	// KVM: device-plugin (requests devices.kubevirt.io/kvm) or
	// privileged (a privileged pod with the host's /dev/kvm).
	KVM string `yaml:"kvm"`
	// Parallelism: pods at once; 0: every cell at once.
	Parallelism int `yaml:"parallelism"`
}

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
	QEMU        string   `yaml:"qemu"`
	Accel       string   `yaml:"accel"` // auto | kvm | tcg
	CPUs        int      `yaml:"cpus"`
	MaxCPUs     int      `yaml:"max_cpus"`
	MemoryMB    int      `yaml:"memory_mb"`
	BootTimeout Duration `yaml:"boot_timeout"`
	Cmdline     string   `yaml:"cmdline"`
	// PanicOnWarn boots every guest with panic_on_warn=1: a WARNING then
	// ends the cell as crashed (with its console), as syzkaller runs.
	PanicOnWarn bool `yaml:"panic_on_warn"`
	// Clock is the guest's sense of time: "host" (real time; under TCG
	// every vCPU on its own host thread) or "icount" (TCG only: one host
	// thread runs all vCPUs and the guest's clock advances by
	// 2^ICountShift ns per instruction executed, so a guest-timed figure
	// no longer depends on how fast the host ran it).
	Clock       string `yaml:"clock"`
	ICountShift int    `yaml:"icount_shift"`
}

// ICount reports whether guests run with an instruction-counting clock.
func (v VM) ICount() bool { return v.Clock == "icount" }

// Workload is what kagent runs in every guest.
type Workload struct {
	Name     string            `yaml:"name"`
	Duration Duration          `yaml:"duration"`
	Params   map[string]string `yaml:"params"`
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
// descriptor's, in report order), then each named lock's contention; nil
// for a workload the registry does not know.
func (w Workload) Specs() []metrics.Spec {
	specs := workload.Metrics(w.Name)
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

//go:embed default.yaml
var defaultYAML []byte

//go:embed experiments/*.yaml
var builtinExperiments embed.FS

// DefaultPrimaryMetrics is the workload's primary metrics when the
// experiment names none (nil otherwise, or for a gate-only experiment):
// its descriptor's (guest/workload), judged as their own false-discovery
// family so that a large change of one is not diluted by the secondary
// metrics (4+4 boots can call one metric at alpha 0.05; they cannot call
// one of 11).
func (c *Config) DefaultPrimaryMetrics() []string {
	if len(c.PrimaryMetrics) > 0 || c.GateOnly {
		return nil
	}
	return workload.Primary(c.Workload.Name)
}

// JudgedPrimary is the primary metrics a comparison of this experiment
// judges: the named ones, else the workload's.
func (c *Config) JudgedPrimary() []string {
	if len(c.PrimaryMetrics) > 0 {
		return c.PrimaryMetrics
	}
	return c.DefaultPrimaryMetrics()
}

// Experiments lists the built-in experiments that -c accepts by name.
func Experiments() []string {
	names := []string{"rstat-relock"}
	entries, _ := builtinExperiments.ReadDir("experiments")
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

// readConfigFile reads file from disk or, when there is no such file, the
// built-in experiment of that name.
func readConfigFile(file string) ([]byte, error) {
	data, err := readCapped(file, maxConfigSize)
	if err == nil {
		return data, nil
	}
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsRune(file, '/') {
		if file == "rstat-relock" {
			return defaultYAML, nil
		}
		if b, berr := builtinExperiments.ReadFile("experiments/" + file + ".yaml"); berr == nil {
			return b, nil
		}
		return nil, fmt.Errorf("config: %s: no such file, nor a built-in experiment (built in: %s)", file, strings.Join(Experiments(), ", "))
	}
	return nil, fmt.Errorf("config: %w", err)
}

// maxConfigSize bounds an experiment file: the built-in ones are 1-2 KB,
// and a config (with its patch families) has no reason to be megabytes;
// a larger one is a mistake (the wrong file) or hostile.
const maxConfigSize = 1 << 20

// readCapped reads a file of at most max bytes; a larger one is an error
// that names the file and the cap, read no further than the cap.
func readCapped(file string, max int64) ([]byte, error) {
	// A regular file only: open(2) of a FIFO without a writer would
	// wait for one for ever.
	f, _, err := regularfile.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d KiB: not an experiment file", file, max>>10)
	}
	return data, nil
}

// DefaultYAML is the built-in default experiment.
func DefaultYAML() []byte { return defaultYAML }

// hostDefaults fills what depends on the machine: vCPUs up to the host's
// cores (a latency metric is noise once vCPUs outnumber host cores), make
// jobs, and the per-user cache and data directories. They are the
// lowest layer: the default experiment, a file, env or flags override.
func hostDefaults(c *Config) {
	cpus := runtime.NumCPU()
	c.VM.CPUs = min(cpus, 8)
	c.Kernel.Jobs = cpus + 1
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	c.CacheDir = filepath.Join(cache, "kregress")
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		home, _ := os.UserHomeDir()
		data = filepath.Join(home, ".local", "share")
	}
	c.ResultsDir = filepath.Join(data, "kregress")
	c.Agent = "kagent"
	if exe, err := os.Executable(); err == nil {
		c.Agent = filepath.Join(filepath.Dir(exe), "kagent")
	}
}

// FileError is a configuration file problem, with its line when known.
type FileError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *FileError) Error() string {
	var where []string
	if e.Line > 0 {
		where = append(where, fmt.Sprintf("line %d", e.Line))
	}
	if e.Key != "" {
		where = append(where, "key "+e.Key)
	}
	if len(where) == 0 {
		return fmt.Sprintf("config %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("config %s: %s: %s", e.File, strings.Join(where, ", "), e.Msg)
}

// ExitStatus is a usage error's: the file must change.
func (e *FileError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// Load resolves the configuration. file may be empty (built-in default);
// flags, if given, override everything else for the keys they are bound to
// (flag name = key with dots, e.g. --vm.cpus).
func Load(file string, flags *pflag.FlagSet) (*Config, *yaml.Node, error) {
	var c Config
	hostDefaults(&c)
	if _, err := decodeYAML(&c, "(built-in default)", defaultYAML); err != nil {
		return nil, nil, fmt.Errorf("built-in default config: %w", err)
	}
	name := "(built-in default)"
	var root *yaml.Node
	dir, _ := os.Getwd()
	if file != "" {
		name = file
		data, err := readConfigFile(file)
		if err != nil {
			return nil, nil, err
		}
		// The default's variant list belongs to its family: a file that
		// picks another family without listing variants gets all of
		// them (unless env or a flag lists them: they come next).
		if root, err = decodeYAML(&c, file, data); err != nil {
			return nil, nil, err
		}
		if LineOf(root, "family") > 0 && LineOf(root, "variants") == 0 {
			c.Variants = []string{}
		}
		if _, err := os.Stat(file); err == nil {
			if abs, err := filepath.Abs(file); err == nil {
				dir = filepath.Dir(abs)
			}
		}
	}
	err := overlay(&c, flags)
	if err == nil {
		c.Dir = dir
		err = c.Validate()
	}
	if err == nil && c.Executor.Kind != LocalExecutor {
		// Every node must see the kernels, images and artifacts.
		c.CacheDir = filepath.Join(c.Executor.SharedDir, "cache")
		c.ResultsDir = filepath.Join(c.Executor.SharedDir, "results")
	}
	if err != nil {
		if fe, ok := err.(*FileError); ok {
			// Name where the bad value came from: a flag or the
			// environment override the file, so blaming the file's
			// line (or the built-in default) would send the user to
			// the wrong place.
			env := EnvName(fe.Key)
			switch {
			case flags != nil && flags.Lookup(FlagFor(fe.Key)) != nil && flags.Changed(FlagFor(fe.Key)):
				fe.File = "flag --" + flags.Lookup(FlagFor(fe.Key)).Name
			case os.Getenv(env) != "":
				fe.File = "environment " + env
			default:
				fe.File = name
				if root != nil {
					fe.Line = LineOf(root, fe.Key)
				}
			}
		}
		return nil, nil, err
	}
	return &c, root, nil
}

// FitsCores refuses parallel guests of vcpus each that would share the
// host's cores: a guest on shared cores measures the others' load.
func FitsCores(parallel, vcpus, hostCores int) error {
	if parallel*vcpus <= hostCores {
		return nil
	}
	return fmt.Errorf("%d guests x %d vCPUs need %d host cores, this host has %d: guests would share cores and measure each other (lower executor.parallel or vm.cpus)",
		parallel, vcpus, parallel*vcpus, hostCores)
}

// decodeYAML decodes a YAML document (the default experiment or file)
// over c with yaml.v3, strictly: an unknown key (or one in the wrong
// case), a wrong type or a mapping where a value belongs is an error
// naming the line and the key. Keys the document does not name keep c's
// values. It returns the document's node tree, for the lines of the keys
// Validate refuses (LineOf).
func decodeYAML(c *Config, file string, data []byte) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &FileError{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		lines := []string{strings.TrimPrefix(err.Error(), "yaml: ")}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			lines = te.Errors
		}
		return nil, plainYAMLErrors(file, &root, lines)
	}
	var host Config
	hostDefaults(&host)
	if err := asLayered(reflect.ValueOf(c).Elem(), reflect.ValueOf(host), &root, "", file); err != nil {
		return nil, err
	}
	return &root, nil
}

// asLayered keeps the rules of the layered decoding that the file's
// values had before yaml.v3 decoded them alone (viper decoded them, and
// the tests and users rely on the errors): a key with no value (null)
// is its type's zero, not left at the default experiment's, so that
// "repetitions:" is refused as 0 rather than silently 5, but a key with
// a host default (host: hostDefaults; vm.cpus, kernel.jobs, agent, the
// directories) falls back to it, as viper's defaults layer did, and a
// duration without a value is "", not a duration; a bool
// is true or false, not one of YAML 1.1's yes/no/on/off words that
// yaml.v3 still takes.
func asLayered(v, host reflect.Value, n *yaml.Node, prefix, file string) error {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode || v.Kind() != reflect.Struct {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		for j := 0; j < v.NumField(); j++ {
			if keyName(v.Type().Field(j)) != k.Value {
				continue
			}
			f := v.Field(j)
			switch {
			case f.Kind() == reflect.Struct:
				if err := asLayered(f, host.Field(j), val, prefix+k.Value+".", file); err != nil {
					return err
				}
			case val.ShortTag() == "!!null":
				// A text value (a duration) was decoded from "": an
				// error, not zero (executor.slurm.poll: would pass).
				if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
					if err := u.UnmarshalText(nil); err != nil {
						return &FileError{File: file, Line: k.Line, Key: prefix + k.Value, Msg: err.Error()}
					}
				}
				f.Set(host.Field(j))
			case f.Kind() == reflect.Bool && val.ShortTag() != "!!bool":
				return &FileError{File: file, Line: k.Line, Key: prefix + k.Value, Msg: strconv.Quote(val.Value) + " is not " + kindWords("bool")}
			}
		}
	}
	return nil
}

// fileOnlyKeys are read from the experiment file only, never from the
// environment or flags (their values are documents, not scalars).
var fileOnlyKeys = map[string]bool{"families": true}

// writtenKeys are written by kregress into a run's stored configuration,
// never set by a user: no environment variable or flag sets them. A file
// may carry them: `results show RUN --config` reproduces a stored run's
// configuration for `run -c`, and why the run judged what it judged
// still holds for it.
var writtenKeys = map[string]bool{"primary_fallback": true}

// overlay lays the environment (KREGRESS_VM_CPUS for vm.cpus) and the
// flags AddFlags made that were set over c, through viper and the yaml
// tags. A value of the wrong type is a FileError naming the key, which
// Load places (the flag, the variable).
func overlay(c *Config, flags *pflag.FlagSet) error {
	v := viper.New()
	// AutomaticEnv alone is ignored by Unmarshal for keys viper does not
	// know; bind every key, with dots as underscores.
	v.SetEnvPrefix("KREGRESS")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for _, k := range Keys() {
		v.BindEnv(k)
		if flags == nil {
			continue
		}
		// Only a flag AddFlags made for this key sets it, and only when
		// set: an unset flag's default would override the file.
		if f := flags.Lookup(FlagFor(k)); f != nil && len(f.Annotations[FlagAnnotation]) > 0 && f.Changed {
			v.BindPFlag(k, f)
		}
	}
	hook := mapstructure.ComposeDecodeHookFunc(mapstructure.TextUnmarshallerHookFunc(), mapstructure.StringToSliceHookFunc(","))
	err := v.Unmarshal(c, viper.DecodeHook(hook), func(dc *mapstructure.DecoderConfig) {
		dc.TagName = "yaml"
		// A map or list from env or a flag replaces the file's, as a
		// scalar does, rather than merging into it.
		dc.ZeroFields = true
	})
	if err != nil {
		var de *mapstructure.DecodeError
		if errors.As(err, &de) {
			msg := strings.TrimPrefix(de.Unwrap().Error(), "error decoding '"+de.Name()+"': ")
			// A map's element (noise_floor_pct[reads_per_sec]) is
			// placed by its key, and named in the message.
			key, elem := splitElem(de.Name())
			value := pairValue(envOrFlagValue(key, func(key string) (string, bool) {
				if flags == nil {
					return "", false
				}
				f := flags.Lookup(FlagFor(key))
				if f == nil || !f.Changed {
					return "", false
				}
				return f.Value.String(), true
			}), elem)
			msg = plainParse(msg, value)
			if elem != "" {
				msg = elem + ": " + msg
			}
			return &FileError{Key: key, Msg: msg}
		}
		return &FileError{Msg: err.Error()}
	}
	return nil
}

// LineOf finds the line of a dotted key in a YAML document (0 if absent).
func LineOf(root *yaml.Node, key string) int {
	if root == nil || key == "" {
		return 0
	}
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, part := range strings.Split(key, ".") {
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				line = n.Content[i].Line
				n = n.Content[i+1]
				found = true
				break
			}
		}
		if !found {
			return 0
		}
	}
	return line
}

// keyName is a field's key: its yaml tag's name ("" for a field that is
// no key: yaml "-", derived).
func keyName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// eachKey calls fn with every dotted key of struct type t that env and
// flags can set (not the file-only ones) and its Go type.
func eachKey(t reflect.Type, prefix string, fn func(key string, t reflect.Type)) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := keyName(f)
		if name == "" || fileOnlyKeys[prefix+name] || writtenKeys[prefix+name] {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			eachKey(f.Type, prefix+name+".", fn)
			continue
		}
		fn(prefix+name, f.Type)
	}
}

// Keys lists every configuration key that env and flags can set (for
// --help and `kregress config`).
func Keys() []string {
	var keys []string
	eachKey(reflect.TypeOf(Config{}), "", func(k string, _ reflect.Type) { keys = append(keys, k) })
	return keys
}

// Validate checks ranges and choices, section by section; the error
// names the key.
func (c *Config) Validate() error {
	for _, check := range []func() error{
		c.validateExperiment, c.validateKernel, c.validateVM, c.validateWorkload,
		c.validateExecutor, c.validateDebug, c.validateSelftests, c.validateBisect, c.checkMetricNames,
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
	case vm.CPUs < 1 || vm.CPUs > 512:
		return Invalid("vm.cpus", "%d is out of range 1..512", vm.CPUs)
	case vm.MaxCPUs != 0 && (vm.MaxCPUs < vm.CPUs || vm.MaxCPUs > 512):
		return Invalid("vm.max_cpus", "%d must be 0 or between vm.cpus (%d) and 512", vm.MaxCPUs, vm.CPUs)
	case vm.Clock != "" && vm.Clock != "host" && vm.Clock != "icount":
		return Invalid("vm.clock", "%q: want host or icount", vm.Clock)
	case vm.ICount() && vm.Accel == "kvm":
		return Invalid("vm.clock", "icount counts instructions that TCG executes; with vm.accel kvm the CPU runs them (use vm.accel tcg or auto)")
	case vm.ICountShift < 0 || vm.ICountShift > 10:
		return Invalid("vm.icount_shift", "%d is out of range 0..10 (2^shift ns of guest time per instruction)", vm.ICountShift)
	case vm.MemoryMB < 128 || vm.MemoryMB > 1<<20:
		return Invalid("vm.memory_mb", "%d is out of range 128..1048576", vm.MemoryMB)
	case vm.BootTimeout.D() < 5*time.Second:
		return Invalid("vm.boot_timeout", "%s is too short (at least 5s)", vm.BootTimeout)
	}
	return nil
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
	return nil
}

// validateExecutor checks what every executor shares (executor.kind
// registered, executor.parallel, executor.shared_dir for the ones that
// run cells elsewhere), then the kind's own block through its registered
// check.
func (c *Config) validateExecutor() error {
	e := c.Executor
	check, known := executorCheck(e.Kind)
	switch {
	case !known:
		return Invalid("executor.kind", "%q: want %s", e.Kind, flagkit.OrList(ExecutorKinds()))
	case e.Parallel < 1 || e.Parallel > 256:
		return Invalid("executor.parallel", "%d is out of range 1..256", e.Parallel)
	case e.Kind != LocalExecutor && e.Parallel > 1:
		return Invalid("executor.parallel", "is for the local executor; the %s scheduler places the cells itself", e.Kind)
	case e.Kind != LocalExecutor && !filepath.IsAbs(e.SharedDir):
		return Invalid("executor.shared_dir", "%q: the %s executor needs an absolute directory that every node sees at the same path (NFS): kernels, images, the job file and artifacts go there", e.SharedDir, e.Kind)
	}
	return check(c)
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

// checkMetricNames refuses a primary metric or noise floor that names no
// judged metric of the workload (its descriptor, guest/workload, is the
// list): it would silently judge nothing. A workload the registry does
// not know is refused elsewhere (the agent's command line).
func (c *Config) checkMetricNames() error {
	if workload.Metrics(c.Workload.Name) == nil {
		return nil
	}
	check := func(key, name string) error {
		if s, ok := c.Workload.Spec(name); !ok || !s.Judged() {
			return Invalid(key, "%q is not a judged metric of workload %s (`kregress metrics %s` lists them)", name, c.Workload.Name, c.Workload.Name)
		}
		return nil
	}
	for _, name := range c.PrimaryMetrics {
		if err := check("primary_metrics", name); err != nil {
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
