package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// NightlyLock takes the lock one nightly per store and cache holds,
// saying in it which process holds it; another nightly holding it is a
// *filelock.HeldError naming that one.
func NightlyLock(cfg *config.Config) (unlock func(), err error) {
	host, _ := os.Hostname()
	lockPath := filepath.Join(cfg.CacheDir, "nightly-"+CacheKey(cfg.StoreSpec())+".lock")
	return filelock.TryLock(lockPath, fmt.Sprintf("kregress nightly, pid %d on %s, since %s", os.Getpid(), host, time.Now().Format(time.RFC3339)))
}

// LockedError is a night refused because another nightly holds the
// lock of its store and cache (a *filelock.HeldError, which it wraps):
// it names the holder and exits ExitLocked (6).
type LockedError struct{ *filelock.HeldError }

func (e LockedError) Error() string {
	return "another nightly is running on this store and cache: " + e.Holder
}

func (e LockedError) Unwrap() error { return e.HeldError }

// ExitStatus is 6 (verdict.ExitOf).
func (LockedError) ExitStatus() verdict.Exit { return verdict.ExitLocked }

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

// checkRetention refuses a negative --keep-artifacts, before the lock
// is taken or the store opened (the other knobs are the night's to
// check: nightly.Night.Check).
func (s NightSettings) checkRetention() error {
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

// Nightly is one `kregress nightly`: its knobs and experiments (its
// flags bind Settings and Bisect), the ports through which it resolves
// experiments, opens the store and reports progress, and where it prints
// and writes its outputs (its -f and -o) and shows the bisects it hands
// off (as `kregress bisect` shows them).
type Nightly struct {
	Settings    NightSettings
	Experiments []string
	// Load resolves an experiment with the command's flags.
	Load func(experiment string) (*config.Config, error)
	// Open opens the store, once the lock is held.
	Open   func(ctx context.Context, spec string) (results.Store, error)
	Report progress.Reporter
	// Stdout gets the night in Format: the table one experiment at a
	// time as each is judged, another format whole once the night is
	// over; "" prints nothing (a bare -o FILE took it).
	Stdout io.Writer
	Format format.NightFormat
	// Files are the night's -o FMT=FILE (format.NightFiles): written
	// once the night is over, and again once its bisects are linked,
	// each said on Stderr.
	Files  []flagkit.Output
	Stderr io.Writer
	// Bisect (--bisect) runs the bisects the night handed off (Handoffs)
	// and links them into it.
	Bisect bool
	// Runner measures each experiment; nil is the pipeline.
	Runner nightly.Runner
}

// Run runs the night on cfg's store and cache: the executor and the
// retention checked (usage errors), then under the nightly lock
// (another nightly holding it is a LockedError) the night
// itself (measure), its outputs published (and its Markdown appended to
// $GITHUB_STEP_SUMMARY when GitHub Actions set it) and, unless it was
// interrupted or handed nothing off, the bisects and the outputs again
// with them linked: after the first outputs, so a long bisect does not
// hold them back. The night's verdict is nightreport.Worst of what it
// returns; a bisect's failure is reported, never the night's.
func (nn *Nightly) Run(ctx context.Context, cfg *config.Config) ([]*nightreport.Result, error) {
	if err := WaitsForCells("nightly", cfg); err != nil {
		return nil, err
	}
	if err := nn.Settings.checkRetention(); err != nil {
		return nil, err
	}
	// Experiments and knobs that cannot run are refused before the lock
	// file and the store are created: nothing is made for a night that
	// cannot happen.
	if err := NewNight(nil, nn.Report, nn.Load, nn.Settings).Check(nn.Experiments); err != nil {
		return nil, usage.Wrap(err)
	}
	unlock, err := NightlyLock(cfg)
	if held := (*filelock.HeldError)(nil); errors.As(err, &held) {
		return nil, LockedError{held}
	}
	if err != nil {
		return nil, err
	}
	defer unlock()
	store, err := nn.Open(ctx, cfg.StoreSpec())
	if err != nil {
		return nil, err
	}
	defer store.Close()
	night, err := nn.measure(ctx, store)
	if err != nil {
		return nil, err
	}
	LinkPastBisects(ctx, store, night, nn.handoffOutput().ReportDir)
	if err := nn.publish(night); err != nil {
		return nil, err
	}
	// Once: the rewrite with the bisects linked would append the night
	// to $GITHUB_STEP_SUMMARY twice.
	if err := format.AppendNightStepSummary(night); err != nil {
		return nil, err
	}
	if !nn.Bisect || ctx.Err() != nil || len(nightreport.Handoffs(night)) == 0 {
		return night, nil
	}
	(&Session{Store: store, Report: nn.Report}).Handoffs(ctx, nn.Load, night, nn.handoffOutput())
	if err := nn.publish(night); err != nil {
		return nil, err
	}
	return night, nil
}

// publish writes the night's files.
func (nn *Nightly) publish(night []*nightreport.Result) error {
	return flagkit.WriteFiles(nn.Stderr, nn.Files, format.NightWriter(night))
}

// handoffOutput shows the night's bisects where the night is shown,
// their reports beside the night's HTML page when it writes one.
func (nn *Nightly) handoffOutput() HandoffOutput {
	out := HandoffOutput{Stdout: nn.Stdout, Stderr: nn.Stderr}
	if page := flagkit.PathFor(nn.Files, string(format.NightHTML)); page != "" {
		out.ReportDir = filepath.Dir(page)
	}
	return out
}

// measure runs the night's experiments into store (nightly.Night.Tonight)
// and prints it on Stdout: the table as each experiment is judged,
// another format once all are.
func (nn *Nightly) measure(ctx context.Context, store results.Store) ([]*nightreport.Result, error) {
	n := NewNight(store, nn.Report, nn.Load, nn.Settings)
	if nn.Runner != nil {
		n.Runner = nn.Runner
	}
	night, err := n.Tonight(ctx, nn.Experiments, func(r *nightreport.Result) {
		if nn.Format == format.NightTable {
			format.WriteNightExperiment(nn.Stdout, r)
		}
	})
	if err != nil || nn.Format == "" || nn.Format == format.NightTable {
		return night, err
	}
	if err := format.WriteNight(nn.Stdout, nn.Format, night); err != nil {
		return nil, err
	}
	return night, nil
}
