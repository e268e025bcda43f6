package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
)

// fakeTree is a kernel tree of version v whose cgroup trace header
// defines the rstat lock events or not.
func fakeTree(t *testing.T, v string, rstatEvents bool) string {
	dir := t.TempDir()
	parts := strings.Split(v, ".")
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte(fmt.Sprintf("VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\n", parts[0], parts[1], parts[2])), 0o644)
	os.MkdirAll(filepath.Join(dir, "include/trace/events"), 0o755)
	h := "DEFINE_EVENT(cgroup, cgroup_mkdir,\n);\n"
	if rstatEvents {
		h += "DEFINE_EVENT(cgroup_rstat, cgroup_rstat_locked,\n);\nDEFINE_EVENT(cgroup_rstat, cgroup_rstat_unlock,\n);\n"
	}
	os.WriteFile(filepath.Join(dir, "include/trace/events/cgroup.h"), []byte(h), 0o644)
	return dir
}

func TestCheckPrimary(t *testing.T) {
	var said []string
	warnings := 0
	rep := func(f string, a ...any) {
		said = append(said, fmt.Sprintf(f, a...))
		if _, ok := progress.AsWarning(a); ok {
			warnings++
		}
	}
	rstat := func(primary ...string) *config.Config {
		return &config.Config{Workload: config.Workload{Name: "rstat"}, PrimaryMetrics: primary}
	}

	// 6.12 has the events: nothing changes.
	cfg := rstat()
	if err := checkPrimaryIn(cfg, []sourceTree{{fakeTree(t, "6.12.118", true), "6.12 tree"}}, rep); err != nil || len(cfg.PrimaryMetrics) != 0 {
		t.Fatalf("6.12: %v, primary %v", err, cfg.PrimaryMetrics)
	}

	// 6.1, the workload's own primary: the fallback is judged, said,
	// and written into the configuration that is stored.
	cfg = rstat()
	if err := checkPrimaryIn(cfg, []sourceTree{{fakeTree(t, "6.1.192", false), "6.1 tree"}}, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.PrimaryMetrics, ",") != "read_latency_p50_us" {
		t.Errorf("primary %v: want the fallback", cfg.PrimaryMetrics)
	}
	if len(said) != 1 || !strings.Contains(said[0], "instead of rstat_lock_hold_p50_us, which 6.1 tree (6.1.192) cannot produce: unavailable on this kernel: no tracepoint cgroup:cgroup_rstat_locked") {
		t.Errorf("said %q", said)
	}
	// It changes what the verdict is about: a Warning (-q does not hide
	// it, hostile audit), and why is in the configuration stored with
	// the run, for every verdict judged from it.
	if warnings != 1 || !strings.HasPrefix(said[0], "warning: primary metric: read_latency_p50_us instead of") {
		t.Errorf("the fallback was not said as a warning: %q", said)
	}
	if got := StoredPrimaryFallback(cfg.YAML()); got == "" || !strings.Contains(said[0], got) {
		t.Errorf("stored configuration's fallback %q, said %q", got, said)
	}
	if got := StoredPrimaryFallback(rstat().YAML()); got != "" {
		t.Errorf("a run that judged its own primary stores a fallback: %q", got)
	}

	// 6.1, the experiment named the lock-hold metric: refused, naming
	// the metric, the tree's version and the missing events.
	cfg = rstat("rstat_lock_hold_p99_us")
	err := checkPrimaryIn(cfg, []sourceTree{{fakeTree(t, "6.1.192", false), "6.1 tree"}}, rep)
	var up *UnmeasurablePrimaryError
	if !errors.As(err, &up) || !up.Named || !strings.Contains(err.Error(), "primary metric rstat_lock_hold_p99_us cannot be measured on 6.1 tree (6.1.192)") || !strings.Contains(err.Error(), "tracepoint cgroup:cgroup_rstat_unlock") {
		t.Errorf("named primary on 6.1: %v", err)
	}

	// A workload whose primary needs nothing of the kernel is not
	// looked at (no tree is read: this one does not exist).
	cfg = &config.Config{Workload: config.Workload{Name: "execve"}}
	if err := checkPrimaryIn(cfg, []sourceTree{{"/nonexistent", "none"}}, rep); err != nil {
		t.Errorf("execve: %v", err)
	}
}
