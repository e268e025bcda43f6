package session

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/results"
)

// NightlyLock takes the lock one nightly per store and cache holds,
// saying in it which process holds it; another nightly holding it is a
// *filelock.HeldError naming that one.
func NightlyLock(cfg *config.Config) (unlock func(), err error) {
	host, _ := os.Hostname()
	lockPath := filepath.Join(cfg.CacheDir, "nightly-"+CacheKey(cfg.StoreSpec())+".lock")
	return filelock.TryLock(lockPath, fmt.Sprintf("kregress nightly, pid %d on %s, since %s", os.Getpid(), host, time.Now().Format(time.RFC3339)))
}

// NightSettings are the knobs of one night (nightly's flags).
type NightSettings struct {
	Branch           string
	Alpha, GreyUpper float64
	ExtraRounds      int
	Baseline         int64
	Resume           []int64
	// KeepArtifacts is --keep-artifacts (nightly.Night.KeepArtifacts).
	KeepArtifacts time.Duration
}

// CheckRetention refuses a negative --keep-artifacts, before the lock
// is taken or the store opened (the other knobs are the night's to
// check: nightly.Night.Check).
func (s NightSettings) CheckRetention() error {
	if s.KeepArtifacts < 0 {
		return usage.Errorf("--keep-artifacts %s is negative (0 keeps every artifact)", s.KeepArtifacts)
	}
	return nil
}

// NightExperiments are the experiments a nightly runs: those it is
// named, else the -c experiment (configFile, "" when none), else the
// seeds set.
func NightExperiments(named []string, configFile string) []string {
	switch {
	case len(named) > 0:
		return named
	case configFile != "":
		return []string{configFile}
	}
	return Seeds
}

// NewNight is the night s describes, its experiments resolved by load
// and measured through a session (the debug pass with debug.pass on),
// marked good by USER@HOST.
func NewNight(store results.Store, rep progress.Reporter, load func(experiment string) (*config.Config, error), s NightSettings) *nightly.Night {
	host, _ := os.Hostname()
	who := cmp.Or(os.Getenv("USER"), "nightly")
	return &nightly.Night{
		Store: store, Runner: nightly.PipelineRunner{Store: store, Report: rep},
		Debug: (&Session{Store: store, Report: rep}).NightlyDebug, Load: load,
		Branch: s.Branch, Alpha: s.Alpha, GreyUpper: s.GreyUpper, ExtraRounds: s.ExtraRounds, Baseline: s.Baseline,
		Who: who + "@" + host, Report: rep, ResumeRuns: s.Resume, KeepArtifacts: s.KeepArtifacts,
	}
}
