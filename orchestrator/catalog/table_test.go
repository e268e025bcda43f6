package catalog

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/patches"
)

// The CAN SEE column: a metric not measured, a run it came from, and
// boots too few to find anything each say so.
func TestSeesText(t *testing.T) {
	mde := 12.5
	lines := []SensitivityLine{{Metric: "a", MDEPct: &mde, CV: 0.1}, {Metric: "b"}}
	if got := seesText(Info{Name: "x", Primary: []string{"a", "b"}, Sees: lines, From: "noise run 3"}); !strings.Contains(got, "b: not measured") || !strings.Contains(got, "(noise run 3)") || !strings.Contains(got, " a") {
		t.Errorf("seesText: %s", got)
	}
	if got := seesText(Info{Sees: []SensitivityLine{{Metric: "a", CV: 0.1}}, From: "f"}); !strings.Contains(got, "nothing at these boots") {
		t.Errorf("seesText of an unreachable change: %s", got)
	}
	if got := seesText(Info{NotRunnable: "icount refuses kvm"}); got != "not with these flags: icount refuses kvm" {
		t.Errorf("seesText of a refused experiment: %s", got)
	}
	var b bytes.Buffer
	if err := WriteInfos(&b, "guests run under TCG", []Info{{Name: "x", Workload: "rstat", Clock: "host", Repetitions: 8, Summary: "what"}}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.HasPrefix(out, "guests run under TCG\n\nNAME") || !strings.Contains(out, "gate only") {
		t.Errorf("WriteInfos:\n%s", out)
	}
}

// metrics lists one workload, an experiment's workload with its judged
// primary metrics, or every workload; an unknown workload is refused.
func TestMetricsOf(t *testing.T) {
	all, err := MetricsOf("", nil, "")
	if err != nil || len(all) == 0 {
		t.Fatalf("every workload: %v", err)
	}
	rows, err := MetricsOf("execve", nil, "")
	if err != nil || len(rows) == 0 || len(rows) >= len(all) {
		t.Fatalf("execve: %d rows of %d, %v", len(rows), len(all), err)
	}
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workload.Name = "execve"
	cfg.PrimaryMetrics = []string{"execs_per_sec"}
	rows, err = MetricsOf("", cfg, "mine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Workload != "execve" || r.Primary != (r.Name == "execs_per_sec") {
			t.Errorf("-c: %s/%s primary %v", r.Workload, r.Name, r.Primary)
		}
	}
	// The locks the experiment names add their contention metrics.
	cfg.Workload.LockContention = []string{"cgroup_mutex"}
	cfg.PrimaryMetrics = []string{"lock_cgroup_mutex_wait_p50_us"}
	locked, err := MetricsOf("", cfg, "mine.yaml")
	if err != nil || len(locked) != len(rows)+4 {
		t.Fatalf("with a lock: %d rows, want %d, %v", len(locked), len(rows)+4, err)
	}
	if r := locked[len(rows)+1]; r.Name != "lock_cgroup_mutex_wait_p50_us" || !r.Primary || !r.Judged || r.Direction != "lower" {
		t.Errorf("lock row %+v", r)
	}
	cfg.Workload.LockContention = nil
	if _, err := MetricsOf("nope", nil, ""); !usage.Is(err) || !strings.Contains(err.Error(), `no workload "nope"`) {
		t.Errorf("an unknown workload: %v", err)
	}
	cfg.Workload.Name = "nope"
	if _, err := MetricsOf("", cfg, "mine.yaml"); !usage.Is(err) || !strings.HasPrefix(err.Error(), "mine.yaml: ") {
		t.Errorf("an experiment's unknown workload: %v", err)
	}
	var b bytes.Buffer
	if err := WriteMetrics(&b, []MetricRow{{Workload: "w", Primary: true}}); err != nil || !strings.Contains(b.String(), "primary") || !strings.HasPrefix(b.String(), "WORKLOAD") {
		t.Errorf("WriteMetrics: %v\n%s", err, b.String())
	}
}

// ListMetrics takes WORKLOAD or -c's experiment, never both.
func TestListMetrics(t *testing.T) {
	rows, err := ListMetrics(MetricsQuery{Args: []string{"execve"}})
	if err != nil || len(rows) == 0 || rows[0].Workload != "execve" {
		t.Fatalf("WORKLOAD execve: %v %+v", err, rows)
	}
	if _, err := ListMetrics(MetricsQuery{Args: []string{"execve"}, File: "rstat-relock", FileGiven: true}); !usage.Is(err) || !strings.Contains(err.Error(), "not both") {
		t.Errorf("WORKLOAD and -c: %v", err)
	}
	rows, err = ListMetrics(MetricsQuery{File: "rstat-relock", FileGiven: true})
	if err != nil || len(rows) == 0 || rows[0].Workload != "rstat" {
		t.Fatalf("-c rstat-relock: %v %+v", err, rows)
	}
	if _, err := ListMetrics(MetricsQuery{File: "no-such.yaml", FileGiven: true}); !usage.Is(err) {
		t.Errorf("-c of a missing file: %v", err)
	}
	all, err := ListMetrics(MetricsQuery{})
	if err != nil || len(all) <= len(rows) {
		t.Errorf("every workload: %d rows, %v", len(all), err)
	}
}

// The built-in benchmark experiments list their declared metrics, each
// with at least three judged ones, the first declared one primary.
func TestBenchmarkExperimentsMetrics(t *testing.T) {
	for exp, primary := range map[string]string{"hackbench": "hackbench_time_s", "stress-ng": "context_ops_per_sec", "fio-ram": "write_iops"} {
		cfg, _, err := config.Load(exp, nil)
		if err != nil {
			t.Fatalf("%s: %v", exp, err)
		}
		rows, err := MetricsOf("", cfg, exp)
		if err != nil {
			t.Fatal(err)
		}
		judged := 0
		for _, r := range rows {
			if r.Judged {
				judged++
			}
			if r.Workload != "benchmark" || r.Primary != (r.Name == primary) {
				t.Errorf("%s: %+v", exp, r)
			}
		}
		if judged < 3 || rows[0].Name != primary {
			t.Errorf("%s: %d judged metrics, first %s", exp, judged, rows[0].Name)
		}
	}
}

// What VariantWords says of stock, per-cpu-relock and base is what the
// manifest makes them: stock the baseline with the relock patch, and
// per-cpu-relock the tree with no patch.
func TestVariantWordsMatchTheManifest(t *testing.T) {
	m, err := patches.Load()
	if err != nil {
		t.Fatal(err)
	}
	f := m.Families["rstat"]
	if f == nil || f.Baseline != "stock" {
		t.Fatalf("the rstat family's baseline is not stock: %+v", f)
	}
	stock, shipped := f.Variants["stock"], f.Variants["per-cpu-relock"]
	if stock == nil || !slices.Equal(stock.Patches, []string{"rstat/0001-restore-conditional-relock.patch"}) || !strings.Contains(VariantWords, stock.Patches[0]) {
		t.Errorf("stock is %+v; VariantWords says it is the relock patch", stock)
	}
	if shipped == nil || len(shipped.Patches) != 0 {
		t.Errorf("per-cpu-relock is %+v; VariantWords says it is the tree as shipped", shipped)
	}
	var b bytes.Buffer
	if err := WriteInfos(&b, "guests here run under TCG", nil); err != nil || !strings.Contains(b.String(), "not the unmodified tree") {
		t.Errorf("kregress experiments does not say what stock is: %v\n%s", err, b.String())
	}
}
