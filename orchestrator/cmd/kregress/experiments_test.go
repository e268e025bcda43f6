package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/catalog"
	"github.com/kregress/kregress/orchestrator/config"
	senstable "github.com/kregress/kregress/results/sensitivity"
)

// fakeKVM makes kregress experiments see a host where KVM is unusable
// for reason why ("" : KVM usable).
func fakeKVM(t *testing.T, why string) {
	saved := kvmUnusable
	kvmUnusable = func() string { return why }
	t.Cleanup(func() { kvmUnusable = saved })
}

func experimentsJSON(t *testing.T, args ...string) map[string]catalog.Info {
	t.Helper()
	out, err := runInProcess(append([]string{"experiments", "--json"}, args...)...)
	if err != nil {
		t.Fatalf("experiments %v: %v\n%s", args, err, out)
	}
	var infos []catalog.Info
	if err := json.Unmarshal([]byte(out), &infos); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	byName := map[string]catalog.Info{}
	for _, e := range infos {
		byName[e.Name] = e
	}
	return byName
}

// tableCV is the measured table's CV of the default experiment's primary
// metric under TCG with the host clock.
func tableCV(t *testing.T, metric string) float64 {
	t.Helper()
	for _, r := range senstable.Table() {
		if r.Experiment == "rstat-relock" && r.Accel == senstable.TCG && r.Clock == senstable.IcountClock && r.Metric == metric {
			return r.CV
		}
	}
	t.Fatalf("the measured table has no TCG icount-clock row for rstat-relock %s", metric)
	return 0
}

// On a TCG host every built-in is listed; those the measured table has
// rows for under TCG show a detection limit from them, the others say
// they were not measured under TCG.
func TestExperimentsOnATCGHost(t *testing.T) {
	isolate(t)
	fakeKVM(t, "fake: no /dev/kvm")
	out, err := runInProcess("experiments")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range config.Experiments() {
		if !strings.Contains(out, e+" ") {
			t.Errorf("experiments lacks %s:\n%s", e, out)
		}
	}
	for _, want := range []string{"guests here run under TCG: fake: no /dev/kvm", "(docs/sensitivity.md, measured ",
		"not measured under TCG, icount clock (kregress noise -c cpuset-attach)", "gate only: no metric judged"} {
		if !strings.Contains(out, want) {
			t.Errorf("experiments lacks %q:\n%s", want, out)
		}
	}
	infos := experimentsJSON(t)
	def := infos["rstat-relock"]
	if def.Accel != senstable.TCG || len(def.Sees) != 1 || def.Sees[0].MDEPct == nil || def.NoiseRun != 0 ||
		!strings.HasPrefix(def.From, "docs/sensitivity.md") || def.Sees[0].CV != tableCV(t, def.Sees[0].Metric) {
		t.Fatalf("rstat-relock on TCG, no noise run: %+v", def)
	}
	// More boots see a smaller change from the same measured spread.
	more := experimentsJSON(t, "--repetitions", "16")["rstat-relock"]
	if len(more.Sees) != 1 || more.Sees[0].MDEPct == nil || *more.Sees[0].MDEPct >= *def.Sees[0].MDEPct {
		t.Fatalf("16 boots see %+v, 5 boots %v%%", more.Sees, *def.Sees[0].MDEPct)
	}
	if e := infos["cpuset-attach"]; len(e.Sees) != 0 || e.From != "" {
		t.Fatalf("cpuset-attach has no table row, yet: %+v", e)
	}
	// A setup the table was not measured at is not measured.
	if e := experimentsJSON(t, "--workload.duration", "20s")["rstat-relock"]; len(e.Sees) != 0 {
		t.Fatalf("rstat-relock at 20 s took the 10 s rows: %+v", e)
	}
}

// Under KVM nothing was measured: no figure from the TCG rows, unless
// vm.accel forces TCG.
func TestExperimentsOnAKVMHost(t *testing.T) {
	isolate(t)
	fakeKVM(t, "")
	out, err := runInProcess("experiments")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"guests here would run under KVM", "not measured under KVM, host clock (kregress noise -c rstat-relock)"} {
		if !strings.Contains(out, want) {
			t.Errorf("experiments on a KVM host lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "docs/sensitivity.md") {
		t.Errorf("a KVM host shows the TCG table's figures:\n%s", out)
	}
	if e := experimentsJSON(t, "--vm.accel", "tcg")["rstat-relock"]; e.Accel != senstable.TCG || len(e.Sees) != 1 {
		t.Fatalf("vm.accel tcg on a KVM host: %+v", e)
	}
}

// Every setup of the measured table is a built-in experiment as it is
// configured today: a row whose experiment was renamed or whose clock,
// vCPUs or duration changed would never match again, silently.
func TestMeasuredTableMatchesTheBuiltIns(t *testing.T) {
	for _, r := range senstable.Table() {
		cfg, _, err := config.Load(r.Experiment, nil)
		if err != nil {
			t.Errorf("measured.csv names %s: %v", r.Experiment, err)
			continue
		}
		// The clock the built-in keeps under the row's accelerator, or
		// the host clock that --vm.clock host asks for (not where the
		// built-in insists on icount).
		clock := senstable.HostClock
		if cfg.VM.ICountUnder(string(r.Accel)) {
			clock = senstable.IcountClock
		}
		hostAsked := r.Clock == senstable.HostClock && cfg.VM.Clock != config.ClockICount
		if clock != r.Clock && !hostAsked || cfg.VM.CPUs != r.CPUs || cfg.Workload.Duration.D() != r.Duration {
			t.Errorf("measured.csv %s %s: clock %s, %d vCPUs, %s; the built-in is %s, %d, %s: measure it again",
				r.Experiment, r.Metric, r.Clock, r.CPUs, r.Duration, clock, cfg.VM.CPUs, cfg.Workload.Duration.D())
		}
	}
}

// Flags apply to every built-in, and some refuse them: --vm.accel kvm is
// refused by the icount experiments. The listing names those as not
// runnable with the flags and still lists the others, instead of
// failing as a whole (it did).
func TestExperimentsWithFlagsSomeRefuse(t *testing.T) {
	isolate(t)
	fakeKVM(t, "")
	byName := experimentsJSON(t, "--vm.accel", "kvm")
	if e := byName["rstat-relock-icount"]; !strings.Contains(e.NotRunnable, "icount") {
		t.Errorf("rstat-relock-icount with --vm.accel kvm: %+v, want it not runnable naming icount", e)
	}
	if e := byName["rstat-relock"]; e.NotRunnable != "" || e.Accel != senstable.KVM {
		t.Errorf("rstat-relock with --vm.accel kvm: %+v, want it listed under KVM", e)
	}
}

// Forcing --vm.accel kvm on a host whose KVM is unusable lists what KVM
// would see but says first that a run would fail (it said "guests run
// under KVM here").
func TestExperimentsKVMForcedOnATCGHost(t *testing.T) {
	isolate(t)
	fakeKVM(t, "/dev/kvm is kvm_pvm")
	out, err := runInProcess("experiments", "--vm.accel", "kvm")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "KVM is unusable here (/dev/kvm is kvm_pvm): a run would fail") {
		t.Errorf("experiments --vm.accel kvm on a TCG host:\n%s", out)
	}
}

// experiments -c FILE lists the built-ins and then the file's experiment,
// what it can see and how to measure it (hostile audit: -c was ignored);
// -c naming a built-in lists it once.
func TestExperimentsOfAFile(t *testing.T) {
	isolate(t)
	fakeKVM(t, "fake: no /dev/kvm")
	exp := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(exp, []byte("experiment: mine\nworkload:\n  name: execve\nprimary_metrics: [execs_per_sec]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	byName := experimentsJSON(t, "-c", exp)
	mine, ok := byName["mine"]
	if !ok || mine.File != exp || mine.Workload != "execve" || strings.Join(mine.Primary, ",") != "execs_per_sec" || len(byName) != len(config.Experiments())+1 {
		t.Fatalf("experiments -c FILE: mine %+v, %d experiments", mine, len(byName))
	}
	out, err := runInProcess("experiments", "-c", exp)
	if err != nil || !strings.Contains(out, "(kregress noise -c "+exp+")") {
		t.Errorf("experiments -c FILE: %v\n%s", err, out)
	}
	if byName := experimentsJSON(t, "-c", "rstat-relock-icount"); len(byName) != len(config.Experiments()) {
		t.Errorf("experiments -c BUILTIN lists %d, want the %d built-ins", len(byName), len(config.Experiments()))
	}
}
