package bisect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
)

// A bisect's kernel-only builds go through pipeline.Preflight with the
// bisected metric as the primary: an endpoint whose tree cannot produce
// the metric is refused before its build; a metric it can produce goes
// on to the build (which fails here: the fake tree is no kernel).
func TestBuildRefusesAnUnmeasurableMetric(t *testing.T) {
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	for name, data := range map[string]string{
		"Makefile":                      "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n",
		"include/trace/events/cgroup.h": "DEFINE_EVENT(cgroup, cgroup_mkdir,\n);\n", // no rstat lock events (6.10 on)
	} {
		os.MkdirAll(filepath.Join(repo, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "6.1")
	cfg := &config.Config{CacheDir: t.TempDir(), Workload: config.Workload{Name: "rstat"},
		Kernel: config.Kernel{Source: "git", GitTree: repo, Jobs: 1}}
	prober := func(metric string) *PipelineProber {
		return &PipelineProber{Cfg: cfg, Points: map[string]Point{"good": {Ref: "main"}}, Metric: metric, Report: func(string, ...any) {}}
	}
	_, err := prober("rstat_lock_hold_p50_us").Build(context.Background(), "good")
	var up *pipeline.UnmeasurablePrimaryError
	if !errors.As(err, &up) || !pipeline.Refused(err) || !strings.Contains(err.Error(), "tracepoint cgroup:cgroup_rstat_locked") {
		t.Fatalf("lock holds on 6.1: %v, want refused before the build", err)
	}
	_, err = prober("read_latency_p50_us").Build(context.Background(), "good")
	if err == nil || errors.As(err, &up) || pipeline.Refused(err) || !strings.Contains(err.Error(), "make") {
		t.Fatalf("read latency on 6.1: %v, want the build itself to run (and fail on the fake tree)", err)
	}
}
