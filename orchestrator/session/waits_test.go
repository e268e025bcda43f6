package session

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
)

func TestWaitsForCells(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := WaitsForCells("nightly", cfg); err != nil {
		t.Fatalf("the local executor: %v", err)
	}
	k := *cfg
	k.Executor.Kind = "kubernetes"
	if err := WaitsForCells("nightly", &k); !usage.Is(err) || !strings.HasPrefix(err.Error(), "nightly judges") || !strings.Contains(err.Error(), "kubernetes") {
		t.Errorf("kubernetes: %v", err)
	}
	d := *cfg
	d.Executor.Detach = true
	if err := WaitsForCells("seeds", &d); !usage.Is(err) || !strings.Contains(err.Error(), "executor.detach is for run") {
		t.Errorf("detach: %v", err)
	}
}

// Every seed is a built-in experiment, judgeable as configured; too few
// repetitions are refused before anything builds.
func TestCheckSeeds(t *testing.T) {
	load := func(reps int) func(string) (*config.Config, error) {
		return func(name string) (*config.Config, error) {
			cfg, _, err := config.Load(name, nil)
			if err == nil && reps > 0 {
				cfg.Repetitions = reps
			}
			return cfg, err
		}
	}
	if err := CheckSeeds(Seeds, load(0)); err != nil {
		t.Fatalf("the seeds as built in: %v", err)
	}
	if err := CheckSeeds(Seeds, load(2)); !usage.Is(err) {
		t.Fatalf("2 repetitions: %v, want a usage error", err)
	}
}
