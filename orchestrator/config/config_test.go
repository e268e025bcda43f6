package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/internal/testfile"
)

// writeConfig is an experiment file holding text.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	return testfile.Write(t, filepath.Join(t.TempDir(), "exp.yaml"), text)
}

func TestDefaultLoads(t *testing.T) {
	c, _, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Family != "rstat" || c.Workload.Name != "rstat" || c.Kernel.DebianPackage != "linux-source-6.12" || c.VM.Accel != "auto" {
		t.Fatalf("default: %+v", c)
	}
	if c.VM.CPUs < 1 || c.Workload.Duration.D() != 10*time.Second || c.VM.BootTimeout.D() != 2*time.Minute {
		t.Fatalf("default shape: %+v", c.VM)
	}
}

func TestFileOverridesAndEnvOverridesFile(t *testing.T) {
	p := writeConfig(t, "repetitions: 3\nvm:\n  cpus: 3\nworkload:\n  name: rstat\n  duration: 7s\n")
	t.Setenv("KREGRESS_VM_CPUS", "4")
	c, _, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Repetitions != 3 || c.VM.CPUs != 4 || c.Workload.Duration.D() != 7*time.Second {
		t.Fatalf("got reps=%d cpus=%d dur=%s", c.Repetitions, c.VM.CPUs, c.Workload.Duration)
	}
	// A key not in the file still comes from the default.
	if c.Kernel.BaseConfig != "tinyconfig" {
		t.Fatalf("base config %q", c.Kernel.BaseConfig)
	}
}

func TestMalformedYAMLNamesKeyAndLine(t *testing.T) {
	cases := map[string]struct{ text, want string }{
		"syntax":       {"experiment: x\nvm:\n  cpus: [1\n", "line"},
		"unknown key":  {"experiment: x\nvm:\n  cpu: 4\n", "line 3, key vm.cpu: no such key (did you mean vm.cpus?)"},
		"wrong type":   {"experiment: x\nrepetitions: many\n", "line 2"},
		"bad duration": {"workload:\n  duration: soon\n", "line 2"},
		"out of range": {"experiment: x\nvm:\n  cpus: 0\n", "line 3, key vm.cpus"},
		"bad choice":   {"vm:\n  accel: fast\n", "line 2, key vm.accel"},
		"noise Inf":    {"noise_floor_pct: {reads_per_sec: .inf}\n", `line 1, key noise_floor_pct: "reads_per_sec": +Inf`},
		"noise NaN":    {"noise_floor_pct: {reads_per_sec: .nan}\n", `key noise_floor_pct: "reads_per_sec": NaN`},
		"noise < 0":    {"noise_floor_pct: {reads_per_sec: -3}\n", `key noise_floor_pct: "reads_per_sec": -3`},
		// A key without a value is its zero, not the default's value.
		"no value": {"experiment: x\nrepetitions:\n", "line 2, key repetitions: 0 is out of range"},
		// A duration without a value was "" to the layered decoding:
		// refused, even where no range check follows (slurm's poll
		// under the local executor).
		"no duration": {"experiment: x\nexecutor:\n  slurm:\n    poll:\n", `line 4, key executor.slurm.poll: "" is not a duration`},
		"no timeout":  {"experiment: x\nvm:\n  boot_timeout:\n", `line 3, key vm.boot_timeout: "" is not a duration`},
		// yaml.v3 takes YAML 1.1's yes/no for a bool; the layered
		// decoding never did.
		"yes for true": {"experiment: x\ngate_only: yes\n", `line 2, key gate_only: "yes" is not true or false`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := Load(writeConfig(t, tc.text), nil)
			if err == nil {
				t.Fatal("accepted")
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("want FileError, got %T %v", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "exp.yaml") {
				t.Fatalf("error %q lacks %q or the file name", err, tc.want)
			}
		})
	}
}

func TestLineOf(t *testing.T) {
	root, err := decodeYAML(&Config{}, "x", []byte("experiment: a\nvm:\n  memory_mb: 2\n  cpus: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := LineOf(root, "vm.cpus"); got != 4 {
		t.Fatalf("vm.cpus on line %d, want 4", got)
	}
	if got := LineOf(root, "vm.qemu"); got != 0 {
		t.Fatalf("absent key on line %d", got)
	}
}

func TestBuiltinExperiments(t *testing.T) {
	for _, name := range Experiments() {
		c, _, err := Load(name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.Experiment != name {
			t.Fatalf("%s: experiment is named %q", name, c.Experiment)
		}
	}
	if c, _, _ := Load("pcpu-execve", nil); len(c.Variants) != 0 {
		t.Fatalf("pcpu-execve inherited the default's variants %v", c.Variants)
	}
	if _, _, err := Load("no-such-experiment", nil); err == nil || !strings.Contains(err.Error(), "pcpu-execve") {
		t.Fatalf("unknown name should list the built-ins: %v", err)
	}
}

// A bad value from a flag or the environment is blamed on the flag or the
// variable, not on the file (whose line holds a good value) or the default.
func TestOutOfRangeNamesItsSource(t *testing.T) {
	file := writeConfig(t, "experiment: x\nvm:\n  cpus: 2\n")
	flags := pflag.NewFlagSet("run", pflag.ContinueOnError)
	if err := AddFlags(flags, []string{"vm.cpus"}); err != nil {
		t.Fatal(err)
	}
	if err := flags.Parse([]string{"--vm.cpus", "0"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := Load(file, flags)
	if err == nil || !strings.Contains(err.Error(), "config flag --vm.cpus: key vm.cpus: 0 is out of range") {
		t.Fatalf("flag: %v", err)
	}
	t.Setenv("KREGRESS_VM_CPUS", "0")
	_, _, err = Load(file, nil)
	if err == nil || !strings.Contains(err.Error(), "config environment KREGRESS_VM_CPUS: key vm.cpus: 0 is out of range") {
		t.Fatalf("env: %v", err)
	}
}

// The configuration stored with a run and printed by `kregress config`
// never carries the store's password.
func TestYAMLRedactsStorePassword(t *testing.T) {
	for _, store := range []string{"postgres://ci:s3cret@db/kregress", "host=db user=ci password=s3cret dbname=kregress"} {
		t.Setenv("KREGRESS_STORE", store)
		c, _, err := Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		y := c.YAML()
		if strings.Contains(y, "s3cret") || !strings.Contains(y, "xxx") {
			t.Fatalf("store %q rendered as:\n%s", store, y)
		}
		if c.Store != store {
			t.Fatalf("redaction changed the config itself: %q", c.Store)
		}
	}
}

// testRemote is an executor kind registered the way an executor
// package registers its own, refusing detach in its own check.
type testRemote struct{}

func (testRemote) Info() ExecutorInfo { return ExecutorInfo{Name: "test-remote"} }
func (testRemote) Check(c *Config) error {
	if c.Executor.Detach {
		return Invalid("executor.detach", "test-remote does not detach")
	}
	return nil
}

// A registered executor: the checks every kind but local shares, then
// its own check.
func TestExecutorSettings(t *testing.T) {
	RegisterExecutor(testRemote{})
	wantRefused(t, []refusal{
		{"executor: {kind: test-remote}\n", "executor.shared_dir"},
		{"executor: {kind: test-remote, shared_dir: rel/dir}\n", "executor.shared_dir"},
		{"executor: {kind: test-remote, shared_dir: /srv/k, parallel: 2}\nvm: {cpus: 1}\n", "executor.parallel"},
		{"executor: {kind: test-remote, shared_dir: /srv/k, detach: true}\n", "executor.detach"},
		{"executor: {kind: local, parallel: 1000}\n", "executor.parallel"},
		{"executor: {kind: lsf}\n", "executor.kind"},
	})
	if _, _, err := Load(writeConfig(t, "executor: {kind: lsf}\n"), nil); err == nil || !strings.Contains(err.Error(), `"lsf": want local`) || !strings.Contains(err.Error(), "test-remote") {
		t.Fatalf("an unknown kind's error does not list the registered ones: %v", err)
	}
	c, _, err := Load(writeConfig(t, "executor: {kind: test-remote, shared_dir: /srv/k}\ncache_dir: /elsewhere\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every node must see kernels, images and artifacts.
	if c.CacheDir != "/srv/k/cache" || c.ResultsDir != "/srv/k/results" {
		t.Fatalf("test-remote: cache %s results %s, want them under shared_dir", c.CacheDir, c.ResultsDir)
	}
}

// icount is a TCG clock: it is refused beside KVM and with a shift QEMU
// does not take, each error naming its key.
func TestICountClock(t *testing.T) {
	wantRefused(t, []refusal{
		{"vm: {clock: virtual}\n", "vm.clock"},
		{"vm: {clock: icount, accel: kvm}\n", "vm.clock"},
		{"vm: {clock: icount, icount_shift: 11}\n", "vm.icount_shift"},
	})
	c, _, err := Load(writeConfig(t, "vm: {clock: icount}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.VM.ICountRequired() || c.VM.ICountShift != 3 {
		t.Fatalf("clock %q shift %d", c.VM.Clock, c.VM.ICountShift)
	}
	// The default keeps time by instructions wherever TCG runs the
	// guest, and by the host's clock under KVM, where icount does not
	// exist; asking for the host clock keeps it under TCG too.
	d, _, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.VM.Clock != ClockAuto || d.VM.ICountRequired() || !d.VM.ICountUnder("tcg") || d.VM.ICountUnder("kvm") {
		t.Fatalf("default clock %q: icount under tcg %v, under kvm %v", d.VM.Clock, d.VM.ICountUnder("tcg"), d.VM.ICountUnder("kvm"))
	}
	h, _, err := Load(writeConfig(t, "vm: {clock: host}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.VM.ICountUnder("tcg") {
		t.Fatal("vm.clock host must keep the host clock under TCG")
	}
}

// refusal is a configuration file that must be refused, and the key its
// error must name.
type refusal struct{ yaml, wantKey string }

func wantRefused(t *testing.T, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		_, _, err := Load(writeConfig(t, tc.yaml), nil)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Key != tc.wantKey {
			t.Errorf("%q: error %v, want one naming %s", tc.yaml, err, tc.wantKey)
		}
	}
}

// TestKeysAreKeys: every listed key is one a file, KREGRESS_* or a flag
// can set; the file-only families and the derived dir are not keys.
func TestKeysAreKeys(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Keys() {
		if k == "" || strings.Contains(k, "-") || seen[k] {
			t.Errorf("key %q: empty, with a dash, or listed twice", k)
		}
		seen[k] = true
	}
	for _, want := range []string{"vm.cpus", "executor.kubernetes.kvm", "workload.params"} {
		if !seen[want] {
			t.Errorf("Keys() lacks %s", want)
		}
	}
}

// A primary metric or noise floor naming no judged metric of the
// workload is refused (that each workload's own primary is one of its
// judged metrics is guest/workload's test).
func TestMetricNamesChecked(t *testing.T) {
	for _, e := range Experiments() {
		if _, _, err := Load(e, nil); err != nil {
			t.Errorf("built-in %s: %v", e, err)
		}
	}
	for _, body := range []string{"primary_metrics: [execs_per_sec]\n", "primary_metrics: [reads_total]\n", "noise_floor_pct: {read_per_sec: 2}\n"} {
		f := filepath.Join(t.TempDir(), "x.yaml")
		os.WriteFile(f, []byte(body), 0o644)
		_, _, err := Load(f, nil)
		if err == nil || !strings.Contains(err.Error(), "kregress metrics rstat") {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// The locks an experiment names add their contention metrics: a primary
// metric may name one, and a name that is no kernel symbol is refused.
func TestLockContention(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.yaml")
	os.WriteFile(f, []byte("workload:\n  lock_contention: [cgroup_mutex]\nprimary_metrics: [lock_cgroup_mutex_wait_p99_us]\n"), 0o644)
	cfg, _, err := Load(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workload.IrqsoffHolder = "rcu_core"
	if s, ok := cfg.Workload.Spec("irqsoff_holder_windows_pct"); !ok || !s.Judged() {
		t.Errorf("the experiment's holder is not a judged metric: %+v", s)
	}
	cfg.Workload.IrqsoffHolder = ""
	cfg.Workload.LockContentionUnder = []string{"memory_stat_show"}
	if s, ok := cfg.Workload.Spec("lock_under_memory_stat_show_wait_p99_us"); !ok || !s.Judged() {
		t.Errorf("the locks under a function are not judged: %+v", s)
	}
	cfg.Workload.LockContentionUnder = nil
	specs := cfg.Workload.Specs()
	if n := len(workload.Metrics(cfg.Workload.Name)); len(specs) != n+4 || specs[n].Name != "lock_cgroup_mutex_contentions" {
		t.Errorf("specs %v", specs)
	}
	for body, want := range map[string]string{
		"workload:\n  lock_contention: [\"a || b\"]\n":                               "workload.lock_contention",
		"workload:\n  irqsoff_holder: \"a b\"\n":                                     "workload.irqsoff_holder",
		"primary_metrics: [lock_cgroup_mutex_wait_p99_us]\n":                         "kregress metrics rstat",
		"workload:\n  lock_contention: [x]\nprimary_metrics: [lock_x_contentions]\n": "not a judged metric",
	} {
		os.WriteFile(f, []byte(body), 0o644)
		if _, _, err := Load(f, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

func TestEveryBuiltinIsDescribed(t *testing.T) {
	for _, e := range Experiments() {
		d := Describe(e)
		if len(d) < 20 {
			t.Errorf("%s: description %q", e, d)
		}
		if s := Summary(d, 80); len([]rune(s)) > 80 || s == "" {
			t.Errorf("%s: summary %q", e, s)
		}
	}
	if Describe("nope") != "" {
		t.Error("a description for an unknown experiment")
	}
	if got := Summary("One two three. Four.", 80); got != "One two three." {
		t.Errorf("Summary: %q", got)
	}
}

// MustAddFlags adds what AddFlags adds and panics where it fails.
func TestMustAddFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	MustAddFlags(fs, []string{"vm.cpus", "cache_dir"})
	if fs.Lookup(FlagFor("vm.cpus")) == nil || fs.Lookup(FlagFor("cache_dir")) == nil {
		t.Fatal("MustAddFlags added no flags")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "no-such-key") {
			t.Errorf("an unknown key: recovered %v", r)
		}
	}()
	MustAddFlags(fs, []string{"no-such-key"})
}

// Every key but the executors' (their help is their packages',
// executors_test.go) has help here, and every help is for a key.
func TestKeyHelpIsForKeys(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range Keys() {
		keys[k] = true
		if !strings.HasPrefix(k, "executor.") && Help(k) == "" {
			t.Errorf("key %s has no help", k)
		}
	}
	for k := range keyHelp {
		if !keys[k] || strings.HasPrefix(k, "executor.") {
			t.Errorf("help for %s, which is gone or an executor's", k)
		}
	}
}

// Every key set by its flag reaches the resolved config (types and
// binding), and a same-named flag that is not the key's is ignored.
func TestFlagsSetKeys(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	if err := AddFlags(fs, Keys()); err != nil {
		t.Fatal(err)
	}
	args := []string{"--vm.memory-mb", "2048", "--workload.params", "readers=4", "--noise-floor-pct", "reads_per_sec=2",
		"--vm.clock", "icount", "--order", "shuffled", "--seed", "7", "--kernel.fragments", "guest.config,lockdep.config", "--executor.slurm.poll", "9s"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	c, _, err := Load("", fs)
	if err != nil {
		t.Fatal(err)
	}
	if c.VM.MemoryMB != 2048 || c.Workload.Params["readers"] != "4" || c.NoiseFloorPct["reads_per_sec"] != 2 || c.VM.Clock != "icount" ||
		c.Order != "shuffled" || c.Seed != 7 || len(c.Kernel.Fragments) != 2 ||
		!strings.Contains(c.YAML(), "\n        poll: 9s\n") { // a registered kind's block
		t.Fatalf("flags not applied: %+v", c)
	}
	other := pflag.NewFlagSet("bisect", pflag.ContinueOnError)
	other.String("repetitions", "", "")
	other.Parse([]string{"--repetitions", "3,3,6"})
	if c, _, err := Load("", other); err != nil || c.Repetitions != 5 {
		t.Fatalf("a flag not made by AddFlags was bound: %v %+v", err, c)
	}
}

// A map or list set by a flag replaces the file's, as a scalar does: the
// file is decoded first, the flags are laid over it.
func TestFlagReplacesTheFilesMap(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	if err := AddFlags(fs, Keys()); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--workload.params", "readers=4", "--kernel.fragments", "lockdep.config"}); err != nil {
		t.Fatal(err)
	}
	p := writeConfig(t, "experiment: x\nworkload:\n  name: rstat\n  params: {hog-mode: steady}\nkernel:\n  fragments: [guest.config, slub.config]\n")
	c, _, err := Load(p, fs)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Workload.Params) != 1 || c.Workload.Params["readers"] != "4" || len(c.Kernel.Fragments) != 1 || c.Kernel.Fragments[0] != "lockdep.config" {
		t.Fatalf("params %v, fragments %v: want the flags' alone", c.Workload.Params, c.Kernel.Fragments)
	}
}

// A host-default key without a value falls back to the host's default,
// as viper's defaults layer made it, not to its zero: "vm.cpus:" is the
// host's vCPUs, "agent:" the kagent beside kregress.
func TestNoValueKeepsTheHostDefault(t *testing.T) {
	var host Config
	hostDefaults(&host)
	c, _, err := Load(writeConfig(t, "experiment: x\nagent:\nvm:\n  cpus:\nkernel:\n  jobs: ~\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.VM.CPUs != host.VM.CPUs || c.Kernel.Jobs != host.Kernel.Jobs || c.Agent != host.Agent {
		t.Fatalf("cpus %d jobs %d agent %q, want the host's %d %d %q", c.VM.CPUs, c.Kernel.Jobs, c.Agent, host.VM.CPUs, host.Kernel.Jobs, host.Agent)
	}
}

// primary_fallback is kregress's to write: no flag or environment
// variable sets it; a stored run's configuration reproduced as a file
// (results show RUN --config) keeps it.
func TestWrittenKeysAreNoKeys(t *testing.T) {
	if slices.Contains(Keys(), "primary_fallback") {
		t.Fatal("primary_fallback is a key env and flags set")
	}
	t.Setenv("KREGRESS_PRIMARY_FALLBACK", "hi")
	c, _, err := Load(writeConfig(t, "experiment: x\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.PrimaryFallback != "" {
		t.Fatalf("the environment set primary_fallback: %q", c.PrimaryFallback)
	}
	if c, _, err = Load(writeConfig(t, "experiment: x\nprimary_fallback: why\n"), nil); err != nil || c.PrimaryFallback != "why" {
		t.Fatalf("a stored configuration's primary_fallback: %v %+v", err, c)
	}
}

// config's text is the YAML, then every key as a comment.
func TestCommentedYAML(t *testing.T) {
	c, _, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.CommentedYAML()
	if !strings.HasPrefix(got, c.YAML()+"\n# keys (flag: --KEY") || !strings.HasSuffix(got, "#   "+Keys()[len(Keys())-1]+"\n") || strings.Count(got, "\n#   ") != len(Keys()) {
		t.Errorf("CommentedYAML:\n%s", got)
	}
}

// selftests.target_configs: merge by default (empty, so a stored
// configuration without it is unchanged), off turns it off, anything
// else is refused naming the key; the merge needs targets, not the gate.
func TestTargetConfigs(t *testing.T) {
	wantRefused(t, []refusal{{"selftests: {targets: [mqueue], target_configs: yes}\n", "selftests.target_configs"}})
	for _, tc := range []struct {
		yaml string
		want bool
	}{
		{"selftests: {targets: [mqueue]}\n", true},
		{"selftests: {targets: [mqueue], target_configs: merge}\n", true},
		{"selftests: {targets: [mqueue], target_configs: off}\n", false},
		{"selftests: {targets: [mqueue], repetitions: 0}\n", true}, // a bisect's: the run's kernels
		{"selftests: {targets: []}\n", false},
	} {
		c, _, err := Load(writeConfig(t, tc.yaml), nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if got := c.Selftests.MergeTargetConfigs(); got != tc.want {
			t.Errorf("%q: merge %v, want %v", tc.yaml, got, tc.want)
		}
	}
	if d, _, _ := Load("", nil); d.Selftests.TargetConfigs != "" {
		t.Errorf("default target_configs %q, want empty (merge, not written)", d.Selftests.TargetConfigs)
	}
}

// A fragment path in an experiment file is relative to the file (as the
// docs say of every path in a file), a built-in name stays a name, and a
// flag's path stays relative to the working directory.
func TestFragmentPathsRelativeToTheFile(t *testing.T) {
	file := writeConfig(t, "experiment: x\nkernel:\n  fragments: [guest.config, ./ns.config]\ndebug:\n  fragments: [lockdep.config, sub/more.config]\n")
	dir := filepath.Dir(file)
	c, _, err := Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"guest.config", filepath.Join(dir, "ns.config")}; !slices.Equal(c.Kernel.Fragments, want) {
		t.Errorf("kernel.fragments %q, want %q", c.Kernel.Fragments, want)
	}
	if want := []string{"lockdep.config", filepath.Join(dir, "sub/more.config")}; !slices.Equal(c.Debug.Fragments, want) {
		t.Errorf("debug.fragments %q, want %q", c.Debug.Fragments, want)
	}
	flags := pflag.NewFlagSet("run", pflag.ContinueOnError)
	if err := AddFlags(flags, []string{"kernel.fragments"}); err != nil {
		t.Fatal(err)
	}
	if err := flags.Parse([]string{"--kernel.fragments", "guest.config,./here.config"}); err != nil {
		t.Fatal(err)
	}
	if c, _, err = Load(file, flags); err != nil || !slices.Equal(c.Kernel.Fragments, []string{"guest.config", "./here.config"}) {
		t.Errorf("from a flag: %q, %v; want the flag's paths as given", c.Kernel.Fragments, err)
	}
}
