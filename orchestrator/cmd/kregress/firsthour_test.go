package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/orchestrator/catalog"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/doctor"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results/verdict"
)

// isolate points the store and cache at a fresh directory for in-process
// runs.
func isolate(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("KREGRESS_RESULTS_DIR", dir)
	t.Setenv("KREGRESS_STORE", filepath.Join(dir, "kregress.db"))
	t.Setenv("KREGRESS_CACHE_DIR", filepath.Join(dir, "cache"))
	return dir
}

func TestMetricsCommand(t *testing.T) {
	out, err := runInProcess("metrics", "rstat")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rstat_lock_hold_p50_us", "primary", "reads_per_sec", "higher", "rstat_lock_hold_reader_p99_us"} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics rstat lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "execs_per_sec") {
		t.Errorf("metrics rstat lists execve's metrics:\n%s", out)
	}
	out, err = runInProcess("metrics", "--json")
	var rows []catalog.MetricRow
	if err != nil || json.Unmarshal([]byte(out), &rows) != nil || len(rows) < 30 {
		t.Fatalf("metrics --json: %v, %d rows\n%s", err, len(rows), out)
	}
	// Every primary metric is one; every workload's primary is among them.
	primaries := 0
	for _, r := range rows {
		if r.Primary {
			primaries++
			if !r.Judged {
				t.Errorf("%s %s: primary but not judged", r.Workload, r.Name)
			}
		}
	}
	// A declared workload (benchmark) has its primary in the experiment.
	own := 0
	for _, name := range workload.Names() {
		if len(workload.Primary(name)) > 0 {
			own++
		}
	}
	if primaries != own || own < 4 {
		t.Errorf("%d primary metrics listed, %d workloads with their own", primaries, own)
	}
	if _, err := runInProcess("metrics", "nope"); verdict.ExitOf(err) != verdict.ExitUsage {
		t.Errorf("metrics nope: %v, want exit 2", err)
	}
}

func TestInitWritesARunnableExperiment(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	patch := filepath.Join(dir, "0001-fix.patch")
	os.WriteFile(patch, []byte("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), 0o644)
	file := filepath.Join(dir, "mine.yaml")
	if out, err := runInProcess("init", file, "--patch", patch, "--workload.name", "execve"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cfg, _, err := config.Load(file, nil)
	if err != nil {
		t.Fatalf("the starter file does not load: %v", err)
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		t.Fatalf("its variants do not resolve: %v", err)
	}
	if cfg.Experiment != "mine" || cfg.Workload.Name != "execve" || len(sel.Variants) != 2 || sel.Family.Baseline != "base" ||
		len(sel.Variants[1].Files) != 1 || sel.Variants[1].Files[0].Name != patch {
		t.Fatalf("resolved: experiment %s workload %s, %d variants, baseline %s, candidate %+v", cfg.Experiment, cfg.Workload.Name, len(sel.Variants), sel.Family.Baseline, sel.Variants[len(sel.Variants)-1])
	}
	before, _ := os.ReadFile(file)
	if _, err := runInProcess("init", file); verdict.ExitOf(err) != verdict.ExitUsage {
		t.Fatalf("init over an existing file: %v, want exit 2", err)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatal("init overwrote an existing file")
	}
	if _, err := runInProcess("init", filepath.Join(dir, "g.yaml"), "--base", "v1"); verdict.ExitOf(err) != verdict.ExitUsage {
		t.Errorf("--base without --git-tree: %v", err)
	}
}

// fakeHost is a host doctor checks whose answers the test sets.
type fakeHost struct {
	kvm     string
	missing []string
	free    uint64
}

func (f fakeHost) LookPath(file string) (string, error) { return "/usr/bin/" + file, nil }
func (f fakeHost) KVMUnusable() string                  { return f.kvm }
func (f fakeHost) Missing([]string) ([]string, error)   { return f.missing, nil }
func (f fakeHost) Exists(string) bool                   { return true }
func (f fakeHost) FreeBytes(string) (uint64, error)     { return f.free, nil }
func (f fakeHost) DirBytes(string) (int64, error)       { return 1 << 30, nil }
func (f fakeHost) Store(s string) (string, bool, error) { return s, false, nil }
func (f fakeHost) Writable(string) error                { return nil }

// doctor's exit status: 0 with no failure (a warning such as no KVM
// too), 1 with one, and 1 for a warning under --strict; each problem is
// printed with its fix.
func TestDoctorExitCodes(t *testing.T) {
	isolate(t)
	defer func(e doctor.Env) { doctorEnv = e }(doctorEnv)
	pvm := "/dev/kvm unusable (open /dev/kvm: no such file or directory); the loaded KVM module is kvm_pvm (paravirtual KVM), which cannot run an ordinary kernel"
	for _, c := range []struct {
		name string
		host fakeHost
		args []string
		exit verdict.Exit
		want string
	}{
		{"healthy with KVM", fakeHost{free: 100 << 30}, nil, 0, "no problems found"},
		{"kvm_pvm: TCG, a warning", fakeHost{kvm: pvm, free: 100 << 30}, nil, 0, "guests run under TCG"},
		{"kvm_pvm under --strict", fakeHost{kvm: pvm, free: 100 << 30}, []string{"--strict"}, verdict.ExitFailure, "kvm_pvm"},
		{"packages missing", fakeHost{missing: []string{"flex"}, free: 100 << 30}, nil, verdict.ExitFailure, "fix: apt-get install flex"},
		{"disk full", fakeHost{free: 1 << 30}, nil, verdict.ExitFailure, "fix: free space"},
	} {
		doctorEnv = c.host
		out, err := runInProcess(append([]string{"doctor"}, c.args...)...)
		got := verdict.ExitOK
		if err != nil {
			got = verdict.ExitOf(err)
		}
		if got != c.exit || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d (%v), want %d with %q:\n%s", c.name, got, err, c.exit, c.want, out)
		}
	}
	doctorEnv = fakeHost{free: 1 << 30}
	out, err := runInProcess("doctor", "--json")
	var checks []doctor.Check
	if jerr := json.Unmarshal([]byte(out), &checks); jerr != nil || !errors.As(err, new(verdict.ExitError)) || len(checks) < 8 {
		t.Fatalf("doctor --json: %v %v\n%s", jerr, err, out)
	}
}
