package session

import (
	"slices"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/patches"
)

func TestConfig(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Debug.Pass = "on"
	cfg.Repetitions, cfg.Order = 8, "shuffled"
	cfg.PrimaryMetrics = []string{"reads_per_sec"}
	d := DebugConfig(cfg)
	if d.Experiment != "debug:rstat-relock" || d.Repetitions != 1 || d.Order != "fixed" || d.Debug.Pass != "off" {
		t.Fatalf("experiment %q, %d reps, order %s, debug %s", d.Experiment, d.Repetitions, d.Order, d.Debug.Pass)
	}
	if !slices.Equal(d.Kernel.Fragments, []string{"guest.config", "lockdep.config"}) {
		t.Fatalf("fragments %v", d.Kernel.Fragments)
	}
	if d.Workload.Duration.D() != 4*time.Second || d.Selftests.Repetitions != 1 || d.PrimaryMetrics != nil {
		t.Fatalf("workload %s, selftests %d, primary %v", d.Workload.Duration, d.Selftests.Repetitions, d.PrimaryMetrics)
	}
	// The experiment's own configuration is untouched.
	if cfg.Experiment != "rstat-relock" || len(cfg.Kernel.Fragments) != 1 || cfg.Repetitions != 8 || cfg.Debug.Pass != "on" {
		t.Fatalf("the experiment's config changed: %+v", cfg)
	}
	cfg.Selftests.Repetitions = 0
	if DebugConfig(cfg).Selftests.Repetitions != 0 {
		t.Fatal("selftests turned off in the experiment must stay off in its debug pass")
	}
}

func TestDebugEnabled(t *testing.T) {
	locking, other := &patches.Family{ChangesLocking: true}, &patches.Family{}
	for _, tc := range []struct {
		pass string
		fam  *patches.Family
		want bool
	}{
		{"auto", locking, true}, {"auto", other, false}, {"", locking, true},
		{"on", other, true}, {"off", locking, false},
	} {
		cfg := &config.Config{Debug: config.Debug{Pass: tc.pass}}
		if got := DebugEnabled(cfg, tc.fam, true); got != tc.want {
			t.Errorf("pass %q, changes locking %v: %v", tc.pass, tc.fam.ChangesLocking, got)
		}
		// Without auto (nightly, seeds, the bench) only "on" runs it.
		if got := DebugEnabled(cfg, tc.fam, false); got != (tc.pass == "on") {
			t.Errorf("pass %q without auto: %v", tc.pass, got)
		}
	}
}
