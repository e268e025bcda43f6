package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/catalog"
	"github.com/kregress/kregress/results/verdict"
)

// metrics -c FILE lists the experiment's workload, its primary metrics
// marked as the experiment judges them (hostile audit: -c was ignored and
// every workload listed).
func TestMetricsOfAnExperiment(t *testing.T) {
	isolate(t)
	exp := filepath.Join(t.TempDir(), "mine.yaml")
	os.WriteFile(exp, []byte("experiment: mine\nworkload:\n  name: execve\nprimary_metrics: [execs_per_sec]\n"), 0o644)
	for _, args := range [][]string{{"metrics", "-c", exp, "--json"}, {"metrics", "-c", exp, "-f", "json"}} {
		out, err := runInProcess(args...)
		var rows []catalog.MetricRow
		if err != nil || json.Unmarshal([]byte(out), &rows) != nil || len(rows) == 0 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		for _, r := range rows {
			if r.Workload != "execve" {
				t.Errorf("%v lists %s's %s", args, r.Workload, r.Name)
			}
			if r.Primary != (r.Name == "execs_per_sec") {
				t.Errorf("%v: %s primary %v", args, r.Name, r.Primary)
			}
		}
	}
	// A built-in experiment by name; its primary named in its file.
	out, err := runInProcess("metrics", "-c", "cpuset-attach")
	if err != nil || !strings.Contains(out, "attach_latency_p50_us") || strings.Contains(out, "rstat_lock_hold") || strings.Contains(out, "execs_per_sec") {
		t.Errorf("metrics -c cpuset-attach: %v\n%s", err, out)
	}
	// WORKLOAD and -c together: which one? Refused.
	if out, err := runInProcess("metrics", "-c", exp, "rstat"); verdict.ExitOf(err) != verdict.ExitUsage || !strings.Contains(err.Error(), "not both") {
		t.Errorf("metrics -c FILE rstat: %v, want exit 2\n%s", err, out)
	}
	if _, err := runInProcess("metrics", "-c", filepath.Join(t.TempDir(), "none.yaml")); verdict.ExitOf(err) != verdict.ExitUsage {
		t.Errorf("metrics -c with a missing file: %v, want exit 2", err)
	}
}
