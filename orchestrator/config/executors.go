package config

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/results"
)

// This file is the executors' registry: the one place outside an
// executor's own package that names it. An executor package implements
// ExecutorKind and registers it in its init (RegisterExecutor), and
// kregress links it with one blank import; nothing else changes.

// LocalExecutor is the executor.kind that runs cells on this host: the
// default, and the one kind config implements itself (its cell executor
// is pipeline.Local).
const LocalExecutor = "local"

// ExecutorKind is one way of running an experiment's cells, chosen by
// executor.kind. The registered value is also the pipeline's factory of
// its cell executor (pipeline.CellExecutorMaker).
type ExecutorKind interface {
	// Info is what the registry and its readers know of the kind.
	Info() ExecutorInfo
	// Check validates its block and what it needs of the rest, after the
	// checks every kind shares (executor.parallel, executor.shared_dir),
	// returning Invalid for the first bad key.
	Check(c *Config) error
}

// ExecutorInfo describes an executor kind.
type ExecutorInfo struct {
	// Name is its executor.kind.
	Name string
	// Summary says in a few words how it runs cells, for executor.kind's
	// help ("" for none).
	Summary string
	// KeyHelp describes each key it reads, as its flag's usage: its own
	// block's (executor.<name>.*) and any shared key that only some kinds
	// read (executor.detach); the help prefixes the kinds' names.
	KeyHelp map[string]string
	// NoWait is "" when its cells are run and stored before the run
	// returns, else what it does instead ("only writes a manifest"):
	// commands that judge the cells' results refuse it.
	NoWait string
	// Placement names, for comparing result sets, how it places a cell on
	// a host ("a Slurm task"): cells whose provenance names this kind
	// first (results.Provenance.Executor) were placed so. "" for local.
	Placement string
	// Task is what its scheduler calls the unit that runs one cell
	// through `kregress cell` ("Slurm array task"), and TaskIndex the
	// shell expression of that unit's cell index; "" when its cells run
	// otherwise. The commands' help shows the first kind that has one.
	Task, TaskIndex string
	// Example is a run's flags that choose it, for the commands' help
	// examples ("" for none; the first kind that has one is shown).
	Example string
	// Block makes its own block of keys, executor.<Name>: a pointer to a
	// new struct whose yaml tags are the keys, holding their defaults
	// (nil: it reads no block). config decodes the file, environment and
	// flags into it, lists its keys and prints it; the kind reads it
	// back with Executor.Block and checks it in Check.
	Block func() any
}

// HelpExample is the registered kind the commands' help shows in its
// examples: the first, after local, with a Task and an Example (a zero
// ExecutorInfo when none has).
func HelpExample() ExecutorInfo {
	for _, k := range registered() {
		if info := k.Info(); info.Task != "" && info.Example != "" {
			return info
		}
	}
	return ExecutorInfo{}
}

var (
	executorsMu sync.Mutex
	executors   = map[string]ExecutorKind{LocalExecutor: localKind{}}
)

// RegisterExecutor makes k's name a valid executor.kind (as database/sql
// drivers and syzkaller's VM types register). Each executor package
// calls it once, in its init.
func RegisterExecutor(k ExecutorKind) {
	executorsMu.Lock()
	defer executorsMu.Unlock()
	info := k.Info()
	executors[info.Name] = k
	if info.Placement != "" {
		results.RegisterPlacement(info.Name, info.Placement)
	}
}

// ExecutorKinds lists the registered executor kinds: local first, then
// the others sorted.
func ExecutorKinds() []string {
	var kinds []string
	for _, k := range registered() {
		kinds = append(kinds, k.Info().Name)
	}
	return kinds
}

// Executors is every registered kind, local first, then the others
// sorted by name.
func Executors() []ExecutorKind { return registered() }

func registered() []ExecutorKind {
	executorsMu.Lock()
	defer executorsMu.Unlock()
	var names []string
	for n := range executors {
		if n != LocalExecutor {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := []ExecutorKind{executors[LocalExecutor]}
	for _, n := range names {
		out = append(out, executors[n])
	}
	return out
}

// ExecutorOf is the registered kind c.Executor.Kind names (local when
// empty); an error names the known kinds.
func ExecutorOf(c *Config) (ExecutorKind, error) {
	name := c.Executor.Kind
	if name == "" {
		name = LocalExecutor
	}
	executorsMu.Lock()
	k, ok := executors[name]
	executorsMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("executor %q: not known (known: %v)", name, ExecutorKinds())
	}
	return k, nil
}

// RunsHere says whether c's cells run on this host (the local executor),
// rather than on nodes that share executor.shared_dir.
func (c *Config) RunsHere() bool {
	return c.Executor.Kind == "" || c.Executor.Kind == LocalExecutor
}

// WaitingKinds lists the kinds whose runs return with every cell stored.
func WaitingKinds() []string {
	var kinds []string
	for _, k := range registered() {
		if info := k.Info(); info.NoWait == "" {
			kinds = append(kinds, info.Name)
		}
	}
	return kinds
}

// executorHelp is the help of the executor.* keys: the shared ones, with
// the kinds they concern named from the registry, and each kind's own.
func executorHelp(key string) string {
	kinds := registered()
	switch key {
	case "executor.kind":
		var what []string
		for _, k := range kinds {
			info := k.Info()
			w := info.Name
			if info.Summary != "" {
				w += " (" + info.Summary + ")"
			}
			what = append(what, w)
		}
		return "where cells run: " + flagkit.OrList(what)
	case "executor.shared_dir":
		var elsewhere []string
		for _, k := range kinds[1:] {
			elsewhere = append(elsewhere, k.Info().Name)
		}
		return strings.Join(elsewhere, ", ") + ": a directory every node sees at the same path (replaces cache_dir and results_dir); empty: none (required by those executors)"
	}
	var names []string
	var text string
	for _, k := range kinds {
		if h, ok := k.Info().KeyHelp[key]; ok {
			names = append(names, k.Info().Name)
			if text == "" {
				text = h
			}
		}
	}
	if text == "" {
		return ""
	}
	return strings.Join(names, ", ") + ": " + text
}

// localKind is the local executor's configuration side.
type localKind struct{}

func (localKind) Info() ExecutorInfo {
	return ExecutorInfo{Name: LocalExecutor, KeyHelp: map[string]string{
		"executor.parallel": "guests at once, each pinned to its own vm.cpus host cores",
	}}
}

// Check: parallel guests must not share the host's cores.
func (localKind) Check(c *Config) error {
	if c.Executor.Parallel > 1 {
		if err := FitsCores(c.Executor.Parallel, c.VM.CPUs, runtime.NumCPU()); err != nil {
			return Invalid("executor.parallel", "%v", err)
		}
	}
	return nil
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

// Overcommit says what running c's guests on this host costs when each
// has more vCPUs than the host has cores (hostCores), or "" when they
// fit or run elsewhere (another executor's nodes). A warning, not a
// refusal: a guest that boots slowly still boots, and a throughput
// metric is still comparable between variants measured alike.
func (c *Config) Overcommit(hostCores int) string {
	key, cpus := "vm.cpus", c.VM.CPUs
	if len(c.VM.CPUsSweep) > 0 {
		key, cpus = "vm.cpus_sweep's largest count", slices.Max(c.VM.CPUsSweep)
	}
	if c.Executor.Kind != "" && c.Executor.Kind != LocalExecutor || cpus <= hostCores {
		return ""
	}
	return fmt.Sprintf("%s %d is more than this host's %d cores: the vCPUs take turns on the cores, so every boot and run is slower "+
		"(boot time per vCPU count: docs/benchmarks.md), a latency metric measures the host's scheduling more than the kernel, "+
		"and under TCG at 4x as many vCPUs as cores guests stalled in the irqsoff tracer's lock (docs/seeds.md); keep vm.cpus <= %d, or use KVM",
		key, cpus, hostCores, hostCores)
}

// validateExecutor checks what every executor shares (executor.kind
// registered, executor.parallel, executor.shared_dir for the ones that
// run cells elsewhere), then the kind's own block through its registered
// check.
func (c *Config) validateExecutor() error {
	e := c.Executor
	executorsMu.Lock()
	kind, known := executors[e.Kind]
	executorsMu.Unlock()
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
	return kind.Check(c)
}

// Executor says where the cells run: on this host (local, one guest at
// a time or several pinned side by side) or through a registered kind
// (a cluster's scheduler), each reading its own block, executor.<kind>,
// whose type, defaults and checks its package declares (blocks.go).
type Executor struct {
	Kind string `yaml:"kind"` // local, or a kind an executor package registers (RegisterExecutor)
	// Parallel (local): guests at once, each pinned to its own vm.cpus
	// host cores; refused when they would share cores.
	Parallel int `yaml:"parallel"`
	// SharedDir (every kind but local): a directory every node sees at the same path
	// (NFS): kernels, images, the job file and artifacts go there.
	SharedDir string `yaml:"shared_dir"`
	// Detach (kinds that can wait for their cells): return once the
	// cells are submitted; the run fills in as they end.
	Detach bool `yaml:"detach"`
	// blocks are the registered kinds' blocks by name, each the value
	// its ExecutorInfo.Block made, decoded over; a kind absent has its
	// defaults (Block). A copy of the Config shares them.
	blocks map[string]any
}
