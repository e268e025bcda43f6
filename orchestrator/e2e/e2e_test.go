// Package e2e runs the real pipeline: it builds Debian's 6.12 kernel with
// both rstat variants, boots each under QEMU (TCG here), runs a short rstat
// workload through kagent over SSH and checks what was stored; then it
// feeds the pipeline bad input for real (a kernel that panics while
// booting, a guest that never answers SSH, a Kconfig-dropped option, a
// patch that does not apply) and checks that nothing stored is lost.
//
// The build cache is shared with `kregress run` (KREGRESS_E2E_CACHE, default
// ~/.cache/kregress) so that only the first run on a machine compiles.
// `go test -short` skips this package; `make test` runs it.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

func binDir(t *testing.T) string {
	if d := os.Getenv("KREGRESS_BIN"); d != "" {
		return d
	}
	d := t.TempDir()
	root, _ := filepath.Abs("../..")
	for _, b := range [][]string{{"kagent", "./guest/cmd/kagent"}, {"kregress", "./orchestrator/cmd/kregress"}} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(d, b[0]), b[1])
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", b[0], err, out)
		}
	}
	return d
}

func cacheDir() string {
	if d := os.Getenv("KREGRESS_E2E_CACHE"); d != "" {
		return d
	}
	c, _ := os.UserCacheDir()
	return filepath.Join(c, "kregress")
}

const shortExperiment = `experiment: e2e
family: rstat
variants: [per-cpu-relock]
repetitions: 1
gate_only: true # 1 boot cannot judge a metric (run refuses it otherwise)
vm:
  cpus: 2
  memory_mb: 1024
  boot_timeout: 90s
workload:
  name: rstat
  duration: 3s
  params:
    readers: "2"
    hogs: "2"
    hog-limit-mb: "48"
    window: 1s
selftests:
  repetitions: 0
# The debug pass (on by default for rstat) has its own test, TestDebugGate.
debug:
  pass: off
`

// selftestsOn turns the cgroup selftests gate on with a short list.
const selftestsOn = `selftests:
  binaries: [test_core, test_freezer, test_kill]
  repetitions: 1
  timeout: 2m
`

func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and boots a real kernel (run `make test`)")
	}
	bin := binDir(t)
	results_ := t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "e2e.yaml")
	os.WriteFile(cfgPath, []byte(strings.Replace(shortExperiment, "selftests:\n  repetitions: 0\n", selftestsOn, 1)), 0o644)
	env := append(os.Environ(), "KREGRESS_CACHE_DIR="+cacheDir(), "KREGRESS_RESULTS_DIR="+results_, "KREGRESS_AGENT="+filepath.Join(bin, "kagent"))

	// 1. The real thing, through the CLI.
	runEndToEndCLI(t, bin, cfgPath, env)
	store := storetest.SQLiteIn(t, results_)
	ctx := context.Background()
	run := latestRun(t, store, "e2e")
	checkEndToEndRun(t, store, run)

	// 2. Bad input against the real kernel, into the same store.
	t.Setenv("KREGRESS_CACHE_DIR", cacheDir())
	t.Setenv("KREGRESS_RESULTS_DIR", results_)
	t.Setenv("KREGRESS_AGENT", filepath.Join(bin, "kagent"))
	cfg, _, err := config.Load(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	prep, err := pipeline.Prepare(ctx, cfg, sel, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	checkBrokenGuests(t, brokenRunner(t, store, cfg, prep))
	// A selftest the source tree does not have: refused before any build.
	badST := *cfg
	badST.Selftests.Binaries = []string{"test_core", "test_nope"}
	if _, err := pipeline.Prepare(ctx, &badST, sel, t.Logf); err == nil || !strings.Contains(err.Error(), "test_nope is not a cgroup selftest") {
		t.Errorf("unknown selftest: %v", err)
	}
	checkBadBuildInput(t, cfg, sel)

	// Nothing stored before was lost.
	again, _ := store.Results(ctx, run.ID)
	if len(again) != 2 || again[0].Status != results.StatusOK || again[1].Status != results.StatusOK {
		t.Fatalf("first run's results changed: %+v", again)
	}
}

// runEndToEndCLI runs `kregress run -c cfgPath` with env and checks that
// it succeeds and prints the diff with the selftests gate and a verdict.
func runEndToEndCLI(t *testing.T, bin, cfgPath string, env []string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "kregress"), "run", "--extra-rounds", "0", "-c", cfgPath)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kregress run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	logAfter(t, "kregress run output:\n%s", stdout.String())
	for _, want := range []string{"per-cpu-relock vs stock", "reads_per_sec", "irqs-off worst section", "selftests (correctness gate):", "verdict:"} {
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("diff output lacks %q", want)
		}
	}
}

// checkEndToEndRun checks that run completed with one good cell of each
// variant, each carrying everything a real boot measures.
func checkEndToEndRun(t *testing.T, store results.Store, run *results.Run) {
	t.Helper()
	rs, err := store.Results(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || run.Status != results.RunComplete {
		t.Fatalf("run %s with %d results, want complete with 2", run.Status, len(rs))
	}
	seen := map[string]bool{}
	for _, r := range rs {
		seen[r.Variant] = true
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s: %s", r.Variant, r.Status, r.Error)
		}
		checkEndToEndMeasurements(t, r)
		checkEndToEndProvenance(t, r)
		if _, err := os.Stat(filepath.Join(r.ArtifactDir, "console.log")); err != nil {
			t.Errorf("%s: console artifact: %v", r.Variant, err)
		}
		checkEndToEndSelftests(t, r)
	}
	if !seen["stock"] || !seen["per-cpu-relock"] {
		t.Fatalf("variants %v", seen)
	}
}

// checkEndToEndMeasurements checks that the workload read memory.stat, that
// the irqs-off worst section was parsed and that the rstat lock was timed.
func checkEndToEndMeasurements(t *testing.T, r *results.Result) {
	t.Helper()
	m := map[string]float64{}
	for _, x := range r.Metrics {
		m[x.Name] = x.Value
	}
	if m["reads_total"] <= 0 || m["reads_per_sec"] <= 0 {
		t.Errorf("%s: no memory.stat reads: %v", r.Variant, m)
	}
	if r.IrqsoffWorstUS <= 0 || r.IrqsoffHolder == "" {
		t.Errorf("%s: no parsed irqsoff worst section (%v us, holder %q)", r.Variant, r.IrqsoffWorstUS, r.IrqsoffHolder)
	}
	if m["rstat_lock_holds"] <= 0 {
		t.Errorf("%s: no rstat lock holds measured", r.Variant)
	}
}

// checkEndToEndProvenance checks that r records how its kernel was built
// and booted.
func checkEndToEndProvenance(t *testing.T, r *results.Result) {
	t.Helper()
	p := r.Provenance
	if p.Accel == "" || p.AccelReason == "" || p.QEMUVersion == "" || p.ConfigSHA256 == "" || p.Compiler == "" ||
		!strings.HasPrefix(p.SourceID, "debian:linux-source-6.12") || p.CPUsOnline != 2 || p.CPUsPossible < 2 || p.AgentVersion == "" {
		t.Errorf("%s: provenance incomplete: %+v", r.Variant, p)
	}
	if r.Variant == "stock" && (len(p.PatchSHA256s) != 1 || len(p.TreeChecks) != 1) { // the revert (no harness at max_cpus 0)
		t.Errorf("stock: patches %v checks %v", p.PatchSHA256s, p.TreeChecks)
	}
}

// checkEndToEndSelftests checks that the selftests gate ran in the guest:
// every binary reported, and test_core's tests ran on this kernel (not
// all skipped).
func checkEndToEndSelftests(t *testing.T, r *results.Result) {
	t.Helper()
	byBinary := map[string]map[string]int{}
	for _, st := range r.Selftests {
		if byBinary[st.Binary] == nil {
			byBinary[st.Binary] = map[string]int{}
		}
		byBinary[st.Binary][st.Outcome]++
	}
	for _, b := range []string{"test_core", "test_freezer", "test_kill"} {
		if len(byBinary[b]) == 0 {
			t.Errorf("%s: no selftest result from %s (have %v)", r.Variant, b, byBinary)
		}
	}
	if byBinary["test_core"]["pass"] == 0 {
		t.Errorf("%s: no test_core test passed: %v", r.Variant, byBinary["test_core"])
	}
}

// runBrokenFunc runs one cell of the first prepared variant as experiment
// name, with cmdline added to the kernel's and selftests added to the
// gate, and returns its stored result.
type runBrokenFunc func(name, cmdline string, bootTimeout time.Duration, selftests ...string) *results.Result

// brokenRunner returns a runBrokenFunc that reuses the kernels prep built
// and stores into store.
func brokenRunner(t *testing.T, store results.Store, cfg *config.Config, prep *pipeline.Prepared) runBrokenFunc {
	t.Helper()
	ctx := context.Background()
	return func(name, cmdline string, bootTimeout time.Duration, selftests ...string) *results.Result {
		p := *prep
		p.Variants = []pipeline.VariantBuild{prep.Variants[0]}
		p.Variants[0].Spec.Cmdline += " " + cmdline
		c := *cfg
		c.Experiment = name
		settings := pipeline.Settings(&c, &p)
		cells, err := settings.Runner(t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		cells.BootTimeout = bootTimeout
		if len(selftests) > 0 {
			cells.SelftestCmd += " " + strings.Join(selftests, " ")
		}
		ex := &pipeline.Executor{Store: store, Cells: &pipeline.Local{Runner: cells, Report: t.Logf}, Settings: settings, ArtifactsDir: c.ArtifactsDir(), Report: t.Logf}
		id, err := ex.Execute(ctx, &c, &p)
		if err != nil {
			t.Fatal(err)
		}
		rs, _ := store.Results(ctx, id)
		if len(rs) != 1 {
			t.Fatalf("%s: %d results", name, len(rs))
		}
		return rs[0]
	}
}

// checkBrokenGuests boots the real kernel into four kinds of broken guest
// and checks that each cell is stored with its own failure status and a
// message that names the cause.
func checkBrokenGuests(t *testing.T, runBroken runBrokenFunc) {
	t.Helper()
	start := time.Now()
	panicked := runBroken("e2e-panic", "rdinit=/no/such/init init=/no/such/init", 90*time.Second)
	if panicked.Status != results.StatusCrashed || !strings.Contains(panicked.Error, "Kernel panic") {
		t.Errorf("panicking kernel stored as %s: %s", panicked.Status, panicked.Error)
	}
	if time.Since(start) > 60*time.Second {
		t.Errorf("a panic at boot took %s to detect", time.Since(start))
	}
	silent := runBroken("e2e-nossh", "kregress.nossh", 15*time.Second)
	if silent.Status != results.StatusTimeout || !strings.Contains(silent.Error, "kregress-init: up") {
		t.Errorf("silent guest stored as %s: %s", silent.Status, silent.Error)
	}
	// A guest whose SSH server cannot run: init says so and powers off,
	// so the cell fails as boot_failed instead of waiting out its timeout.
	noagent := runBroken("e2e-noagent", "kregress.noagent", 90*time.Second)
	if noagent.Status != results.StatusBootFailed || !strings.Contains(noagent.Error, "no SSH server: powering off") {
		t.Errorf("guest without an SSH server stored as %s: %s", noagent.Status, noagent.Error)
	}
	// A selftest binary the image does not have: the real agent in the
	// real guest names it; the cell keeps its workload figures.
	missing := runBroken("e2e-selftest-missing", "", 90*time.Second, "test_not_in_image")
	if missing.Status != results.StatusAgentFailed || !strings.Contains(missing.Error, "selftest binary missing from the image: test_not_in_image") {
		t.Errorf("missing selftest binary stored as %s: %s", missing.Status, missing.Error)
	}
	if len(missing.Metrics) == 0 {
		t.Errorf("the workload's figures were dropped when the selftests failed")
	}
}

// checkBadBuildInput builds, on the real tree, with a Kconfig-dropped
// option and with a patch that does not apply, and checks that both fail
// with clear errors and build nothing.
func checkBadBuildInput(t *testing.T, cfg *config.Config, sel *variants.Selection) {
	t.Helper()
	ctx := context.Background()
	src, _ := pipeline.Source(cfg.Kernel)
	guest, _ := kernel.FragmentData("guest.config")
	b := &kernel.Builder{CacheDir: cfg.CacheDir, Jobs: cfg.Kernel.Jobs}
	stock, _ := sel.Family.Variant("stock")
	_, err := b.Build(ctx, kernel.Request{Source: src, Family: "rstat", Variant: stock, BaseConfig: "tinyconfig",
		Fragments: []kernel.Fragment{{Name: "guest.config", Data: guest}, {Name: "bad.config", Data: []byte("CONFIG_KVM_AMD=y\n")}}})
	var ce *kernel.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "CONFIG_KVM_AMD=y (fragment bad.config)") {
		t.Errorf("dropped option: %v", err)
	}
	bad, _ := patches.Parse("rstat/bad.patch", []byte("What: x\nSource: x\nBase: x\n--- a/kernel/cgroup/rstat.c\n+++ b/kernel/cgroup/rstat.c\n@@ -336,3 +336,3 @@\n \t\t\trcu_read_unlock();\n-\t\tno_such_line();\n+\t\tother();\n \t\t}\n"))
	_, err = b.Build(ctx, kernel.Request{Source: src, Family: "rstat", Variant: &patches.Variant{Name: "bad", Files: []*patches.Patch{bad}},
		BaseConfig: cfg.Kernel.BaseConfig, Fragments: []kernel.Fragment{{Name: "guest.config", Data: guest}}})
	var pe *kernel.PatchError
	if !errors.As(err, &pe) || pe.File != "kernel/cgroup/rstat.c" || pe.Hunk != 1 {
		t.Errorf("bad patch: %v", err)
	}
}
