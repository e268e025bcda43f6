package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
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
		"unknown key":  {"experiment: x\nvm:\n  cpu: 4\n", "line 3: field cpu not found"},
		"wrong type":   {"experiment: x\nrepetitions: many\n", "line 2"},
		"bad duration": {"workload:\n  duration: soon\n", "line 2"},
		"out of range": {"experiment: x\nvm:\n  cpus: 0\n", "line 3, key vm.cpus"},
		"bad choice":   {"vm:\n  accel: fast\n", "line 2, key vm.accel"},
		"noise Inf":    {"noise_floor_pct: {reads_per_sec: .inf}\n", `line 1, key noise_floor_pct: "reads_per_sec": +Inf`},
		"noise NaN":    {"noise_floor_pct: {reads_per_sec: .nan}\n", `key noise_floor_pct: "reads_per_sec": NaN`},
		"noise < 0":    {"noise_floor_pct: {reads_per_sec: -3}\n", `key noise_floor_pct: "reads_per_sec": -3`},
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
	root, _, err := strictCheck("x", []byte("experiment: a\nvm:\n  memory_mb: 2\n  cpus: 3\n"))
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
	flags.Int("vm.cpus", 0, "")
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

func TestExecutorSettings(t *testing.T) {
	wantRefused(t, []refusal{
		{"executor: {kind: slurm}\n", "executor.shared_dir"},
		{"executor: {kind: slurm, shared_dir: rel/dir}\n", "executor.shared_dir"},
		{"executor: {kind: slurm, shared_dir: /srv/k, parallel: 2}\nvm: {cpus: 1}\n", "executor.parallel"},
		{"executor: {kind: kubernetes, shared_dir: /srv/k}\n", "executor.kubernetes.image"},
		{"executor: {kind: kubernetes, shared_dir: /srv/k, kubernetes: {image: i, shared_claim: c, kvm: maybe}}\n", "executor.kubernetes.kvm"},
		{"executor: {kind: local, parallel: 1000}\n", "executor.parallel"},
		{"executor: {kind: lsf}\n", "executor.kind"},
	})
	c, _, err := Load(writeConfig(t, "executor: {kind: slurm, shared_dir: /srv/k}\ncache_dir: /elsewhere\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every node must see kernels, images and artifacts.
	if c.CacheDir != "/srv/k/cache" || c.ResultsDir != "/srv/k/results" {
		t.Fatalf("slurm: cache %s results %s, want them under shared_dir", c.CacheDir, c.ResultsDir)
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
	if !c.VM.ICount() || c.VM.ICountShift != 3 {
		t.Fatalf("clock %q shift %d", c.VM.Clock, c.VM.ICountShift)
	}
	if d, _, _ := Load("", nil); d.VM.ICount() {
		t.Fatal("the default clock must be the host's")
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
