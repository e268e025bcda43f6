package session

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
)

// A second nightly on the same store and cache finds the lock held and
// who holds it; once released it can take it.
func TestNightlyLock(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CacheDir = t.TempDir()
	unlock, err := NightlyLock(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var held *filelock.HeldError
	if _, err := NightlyLock(cfg); !errors.As(err, &held) || !strings.Contains(held.Holder, "kregress nightly, pid ") {
		t.Fatalf("a second nightly: %v", err)
	}
	unlock()
	unlock, err = NightlyLock(cfg)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	unlock()
}

// A negative --keep-artifacts is a usage error; 0 keeps everything, and
// the night is given what it keeps.
func TestNightRetention(t *testing.T) {
	if err := (NightSettings{KeepArtifacts: -time.Hour}).checkRetention(); !usage.Is(err) || !strings.Contains(err.Error(), "--keep-artifacts -1h0m0s is negative") {
		t.Fatalf("negative: %v", err)
	}
	for _, keep := range []time.Duration{0, 720 * time.Hour} {
		s := NightSettings{KeepArtifacts: keep}
		if err := s.checkRetention(); err != nil {
			t.Fatalf("%s: %v", keep, err)
		}
		if n := NewNight(nil, nil, nil, s); n.KeepArtifacts != keep {
			t.Errorf("the night keeps %s, want %s", n.KeepArtifacts, keep)
		}
	}
}

// A nightly runs the experiments it is named, else -c's, else the seeds.
func TestNightExperiments(t *testing.T) {
	for _, c := range []struct {
		named      []string
		configFile string
		want       []string
	}{
		{[]string{"a", "b"}, "c.yaml", []string{"a", "b"}},
		{nil, "c.yaml", []string{"c.yaml"}},
		{nil, "", Seeds},
	} {
		if got := NightExperiments(c.named, c.configFile); !slices.Equal(got, c.want) {
			t.Errorf("NightExperiments(%v, %q) = %v, want %v", c.named, c.configFile, got, c.want)
		}
	}
}
