package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/filelock"
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
