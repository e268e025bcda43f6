package debuggate

import (
	"slices"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
)

func TestConfig(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Debug.Enabled = true
	cfg.Repetitions, cfg.Order = 8, "shuffled"
	cfg.PrimaryMetrics = []string{"reads_per_sec"}
	d := Config(cfg)
	if d.Experiment != "debug:rstat-relock" || d.Repetitions != 1 || d.Order != "fixed" || d.Debug.Enabled {
		t.Fatalf("experiment %q, %d reps, order %s, debug %v", d.Experiment, d.Repetitions, d.Order, d.Debug.Enabled)
	}
	if !slices.Equal(d.Kernel.Fragments, []string{"guest.config", "lockdep.config"}) {
		t.Fatalf("fragments %v", d.Kernel.Fragments)
	}
	if d.Workload.Duration.D() != 4*time.Second || d.Selftests.Repetitions != 1 || d.PrimaryMetrics != nil {
		t.Fatalf("workload %s, selftests %d, primary %v", d.Workload.Duration, d.Selftests.Repetitions, d.PrimaryMetrics)
	}
	// The experiment's own configuration is untouched.
	if cfg.Experiment != "rstat-relock" || len(cfg.Kernel.Fragments) != 1 || cfg.Repetitions != 8 || !cfg.Debug.Enabled {
		t.Fatalf("the experiment's config changed: %+v", cfg)
	}
	cfg.Selftests.Repetitions = 0
	if Config(cfg).Selftests.Repetitions != 0 {
		t.Fatal("selftests turned off in the experiment must stay off in its debug pass")
	}
}
