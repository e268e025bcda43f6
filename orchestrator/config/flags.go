package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/kregress/kregress/guest/workload"
)

// FlagAnnotation marks a flag that sets a configuration key (its value:
// the key). Load binds only flags so marked, so a command's own flag
// that happens to share a key's name is never read as the key.
const FlagAnnotation = "kregress/config-key"

// FlagFor is the flag that sets key: the key, with dashes for
// underscores (vm.memory_mb: --vm.memory-mb). One rule for every key,
// the same words as the YAML file and KREGRESS_VM_MEMORY_MB.
func FlagFor(key string) string { return strings.ReplaceAll(key, "_", "-") }

// keyHelp is each key's one-line description, shown as its flag's usage
// (TestEveryKeyHasHelp keeps it complete).
var keyHelp = map[string]string{
	"experiment":                     "the experiment's name, stored with its runs (nightly compares runs of one name)",
	"family":                         "the patch family whose variants are measured (patches/manifest.yaml, or families: in the file)",
	"patches":                        "a directory with your own manifest.yaml of families; empty: the built-in set",
	"variants":                       "variants of the family to measure; the baseline always runs too; empty: all",
	"repetitions":                    "boots per variant; each repetition boots every variant once, interleaved",
	"order":                          "cell order within a repetition: fixed (A B A B) or shuffled (seeded)",
	"seed":                           "the shuffle's seed; 0: a new one per run, recorded with the run",
	"cache_dir":                      "kernel sources, builds and images (default ~/.cache/kregress)",
	"results_dir":                    "where the store (kregress.db) and artifacts live (default ~/.local/share/kregress)",
	"store":                          "results store: a SQLite file or a postgres:// DSN (default results_dir/kregress.db)",
	"noise_floor_pct":                "per metric, changes smaller than this % are never called (e.g. reads_per_sec=2); empty: none",
	"rule_out":                       "a pass needs every metric's boots to rule out a change this many times worse (1.5: 50% slower); more boots where they do not; .inf: off",
	"load_bound":                     "with the host's clock: a timing regression is not called when one side's host ran this many times as contended (load per core, at least 1) as the other's; .inf: off",
	"primary_metrics":                "metrics judged first, as their own false-discovery family; empty: the workload's (kregress metrics)",
	"gating_metrics":                 "metrics a pass must rule out rule_out times worse; empty: the primary metrics and throughput (higher is better); the others are watched: seen worse still blocks a pass",
	"gate_only":                      "judge no metric (figures shown as info): only failure rates, kernel reports and selftests",
	"agent":                          "the kagent binary put into the guest image (default: next to kregress)",
	"busybox":                        "a static busybox for the guest image",
	"kernel.source":                  "debian (a linux-source package) or git (kernel.git_tree)",
	"kernel.debian_package":          "with source debian: the linux-source package (its tarball in /usr/src)",
	"kernel.git_tree":                "a local kernel git repository (source git; bisect; nightly); empty: none (source debian only)",
	"kernel.git_ref":                 "with source git: the base ref; empty: HEAD (variants may name their own ref)",
	"kernel.allow_dirty":             "with source git: measure a dirty git_tree at HEAD as HEAD + its uncommitted changes (recorded as dirty)",
	"kernel.fuzz":                    "let up to N (0-3) context lines of each hunk differ (git apply -C(3-N)); 0: apply exactly",
	"kernel.base_config":             "the make target the .config starts from (tinyconfig, defconfig)",
	"kernel.fragments":               "config fragments merged on top (images/configs; guest.config is what the guest needs)",
	"kernel.jobs":                    "make -j for kernel builds (default: host cores + 1)",
	"kernel.ccache":                  "compile through ccache",
	"kernel.allow_symlinks":          "let patches create symlinks (refused by default)",
	"vm.qemu":                        "the QEMU binary",
	"vm.accel":                       "auto (KVM when a probe guest boots under it, else TCG; the choice and why is recorded), kvm or tcg",
	"vm.cpus":                        "vCPUs per guest (default: host cores, at most 8; keep <= host cores for latency metrics)",
	"vm.max_cpus":                    "possible CPUs (> vm.cpus adds hotplug slots through a harness patch); 0: vm.cpus",
	"vm.cpus_sweep":                  "measure every variant at each of these vCPU counts in one run, compared count by count (e.g. 2,8,16; each 1-512, at most vm.max_cpus when set); empty: vm.cpus only",
	"vm.memory_mb":                   "guest memory in MiB",
	"vm.boot_timeout":                "how long a guest may take to offer SSH (e.g. 120s)",
	"vm.cmdline":                     "extra kernel command line for every variant; empty: none",
	"vm.panic_on_warn":               "boot with panic_on_warn=1: a WARNING ends the cell as crashed",
	"vm.clock":                       "auto (icount under TCG, host under KVM), host (real time: under TCG timings move with the host's load) or icount (TCG only: guest time counts instructions; less spread between boots, none from the host's load)",
	"vm.icount_shift":                "with vm.clock icount: 2^shift ns of guest time per instruction (0-10)",
	"workload.name":                  "the workload kagent runs: " + workloadsHelp(),
	"workload.duration":              "workload time per boot (e.g. 10s)",
	"workload.params":                "workload parameters, e.g. readers=4 (kagent's defaults otherwise; checked before any build)",
	"workload.lock_contention":       "kernel locks (symbols) whose contention each boot records: waits, wait p50/p99/max; empty: none",
	"workload.lock_contention_under": "kernel functions: any lock's contention whose waiter had one among its callers; empty: none",
	"workload.irqsoff_holder":        "part of a kernel function's name: report the share of irqs-off windows it held; empty: none",
	"selftests.binaries":             "cgroup selftests to run in each guest; empty: the family's gate tests",
	"selftests.targets":              "kselftest targets of the tree to run as the gate (sched futex timers ...); empty: none (selftests.binaries only)",
	"selftests.target_configs":       "merge (the default; empty means merge): each named kselftest target's config fragment (tools/testing/selftests/<target>/config) goes into every variant's kernel; off: not",
	"selftests.repetitions":          "run the selftests in the first N repetitions of each variant; 0: off",
	"selftests.timeout":              "per selftest binary (e.g. 3m)",
	"selftests.rerun_failures":       "run a failing binary once more in the same boot; a failure that does not repeat is flaky",
	"debug.pass":                     "the correctness gate's debug pass (lockdep kernels, one boot each): auto (families that change locking), on, off",
	"debug.fragments":                "the debug kernels' extra config fragments",
	"debug.duration":                 "the debug boot's workload time",
	"bisect.speculate":               "metric bisect: steps ahead whose kernels are built while a look boots: auto (only on cores the guests leave free), 0, 1 or 2",
	"looks.max_minutes":              "wall-clock minutes a run (a nightly: each experiment's night) may take: another round of looks whose estimate would pass it is not started; 0: no bound",
	"looks.max_boots":                "boots a run (a nightly: each experiment's night) may take, every variant's: another round of looks that would pass it is not started; 0: no bound",
}

// Help is key's one-line description ("" for an unknown key); the
// executor.* keys' comes from the registered executors.
func Help(key string) string {
	if strings.HasPrefix(key, "executor.") {
		return executorHelp(key)
	}
	return keyHelp[key]
}

// MustAddFlags is AddFlags for keys a program names itself (Keys, or a
// fixed list of them): an error there is a programming error, which it
// panics on, as template.Must does.
func MustAddFlags(fs *pflag.FlagSet, keys []string) {
	if err := AddFlags(fs, keys); err != nil {
		panic(err)
	}
}

// AddFlags defines on fs a flag for each of keys (FlagFor, typed like
// the key, Help as usage, marked with FlagAnnotation), skipping those fs
// already has. Values stay unset unless given: the file, the
// environment and the built-in default decide otherwise.
func AddFlags(fs *pflag.FlagSet, keys []string) error {
	types := map[string]reflect.Type{}
	eachKey(reflect.TypeOf(Config{}), "", func(k string, t reflect.Type) { types[k] = t })
	for _, k := range keys {
		t, ok := types[k]
		if !ok {
			return fmt.Errorf("config: no key %q", k)
		}
		name := FlagFor(k)
		if fs.Lookup(name) != nil {
			continue
		}
		usage := Help(k)
		switch {
		case t == reflect.TypeOf(Duration(0)):
			fs.String(name, "", usage)
		case t.Kind() == reflect.String:
			fs.String(name, "", usage)
		case t.Kind() == reflect.Bool:
			fs.Bool(name, false, usage)
		case t.Kind() == reflect.Int:
			fs.Int(name, 0, usage)
		case t.Kind() == reflect.Uint64:
			fs.Uint64(name, 0, usage)
		case t.Kind() == reflect.Float64:
			fs.Float64(name, 0, usage)
		case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
			fs.StringSlice(name, nil, usage)
		case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Int:
			fs.IntSlice(name, nil, usage)
		case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
			fs.StringToString(name, nil, usage)
		default:
			return fmt.Errorf("config: key %s has type %s, which no flag type carries", k, t)
		}
		if err := fs.SetAnnotation(name, FlagAnnotation, []string{k}); err != nil {
			return err
		}
		// --help shows the built-in default (a flag unset leaves the
		// value to the file and environment: the default is for reading).
		// Keys whose default is the host's say so in their usage.
		if !strings.Contains(usage, "(default:") {
			if def := builtinDefault(k); def != "" {
				fs.Lookup(name).DefValue = def
			}
		}
	}
	return nil
}

// builtinConfig is the built-in default experiment alone, decoded once
// (every command's flags ask it), nil if it does not decode.
var builtinConfig = sync.OnceValue(func() *Config {
	var c Config
	if _, err := decodeYAML(&c, "(built-in default)", defaultYAML); err != nil {
		return nil
	}
	return &c
})

// builtinDefault is key's value in the built-in default experiment as
// text for --help, "" when it is its type's zero (nothing to show).
func builtinDefault(key string) string {
	c := builtinConfig()
	if c == nil {
		return ""
	}
	v := reflect.ValueOf(*c)
	for _, part := range strings.Split(key, ".") {
		if v.Type() == executorType {
			v = v.Interface().(Executor).laidOut()
		}
		found := false
		for i := 0; i < v.NumField(); i++ {
			if keyName(v.Type().Field(i)) == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return ""
		}
	}
	if v.IsZero() || ((v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.Len() == 0) {
		return ""
	}
	switch x := v.Interface().(type) {
	case Duration:
		return x.String()
	case []string:
		return "[" + strings.Join(x, ",") + "]"
	case map[string]float64:
		var kv []string
		for k, f := range x {
			kv = append(kv, fmt.Sprintf("%s=%g", k, f))
		}
		slices.Sort(kv)
		return "[" + strings.Join(kv, ",") + "]"
	}
	return fmt.Sprint(v.Interface())
}

// workloadsHelp lists the registered workloads (guest/workload) in their
// order, the one an experiment declares (the benchmark's program) with
// where the declaration goes.
func workloadsHelp() string {
	var names []string
	for _, w := range workload.All() {
		name := w.Name
		if w.Declared != "" {
			name += " (a program declared in workload.benchmark)"
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}
