package variants

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
)

// TestExperimentNameChecked: an experiment named outside the one
// character set of names is a usage error (exit 2) before anything runs.
func TestExperimentNameChecked(t *testing.T) {
	for _, name := range []string{"x,y", "a|b", "my experiment", "<img>"} {
		cfg, _, err := config.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Experiment = name
		if _, err := Select(cfg, nil, true); !usage.Is(err) || !strings.Contains(err.Error(), "experiment name") {
			t.Errorf("experiment %q: %v, want a usage error naming it", name, err)
		}
	}
}
