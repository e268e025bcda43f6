// Command kregress builds kernels with candidate patches, boots each in
// QEMU, runs a workload under the irqsoff tracer through the guest agent,
// stores every run with its provenance and says what changed.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kregress/kregress/internal/buildinfo"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/debuggate"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/store"
)

func main() {
	if err := newRoot().Execute(); err != nil {
		var ec exitCode
		if !errors.As(err, &ec) {
			fmt.Fprintln(os.Stderr, "kregress:", err)
		}
		os.Exit(exitStatus(err))
	}
}

// Exit codes, the same for run, diff and every other command (README,
// "Exit codes").
const (
	exitFailure        = 1   // an infrastructure or other error: the host, QEMU, a store, a build
	exitUsage          = 2   // bad flags, arguments or configuration
	exitRegression     = 3   // with --fail-on-regression: a regression, more failures, a selftest flag
	exitBaselineFailed = 4   // the baseline kernel could not be measured (build, boot or no ok cell)
	exitAborted        = 130 // a second SIGINT/SIGTERM: exit at once (128 + SIGINT, as shells do)
)

// exitCodesHelp is every exit status a kregress command can end with;
// TestExitCodesHelpComplete checks it names every exit constant of this
// package.
const exitCodesHelp = `Exit codes:
  0    no regression (bisect: a culprit named)
  1    infrastructure or other error (the host, QEMU, a store, a build);
       with --fail-on-regression also: a candidate was unmeasured (every
       cell an infrastructure error: nothing seen, nothing passed)
  2    usage or configuration error (bad flag, argument or key)
  3    a regression: performance, failure rate, new kernel report,
       selftest or debug-pass flag (with --fail-on-regression; always for
       nightly)
  4    the baseline itself could not be measured (its kernel failed to
       build or boot, or no cell of it was ok)
  5    nightly: tonight's kernel did not build, boot or crashed
  6    nightly: another nightly holds the lock
  7    bisect: good and bad do not differ (does not reproduce)
  8    bisect: inconclusive (skipped commits leave a range)
  9    unjudged: no regression, but a primary metric had too few ok
       samples to reach alpha (with --fail-on-regression; always for
       nightly)
  125  bisect step (for git bisect run): skip this commit
  128  bisect step: infrastructure failure (stops git bisect run);
       its 0 and 1 are good and bad
  130  interrupted by a second Ctrl-C (the first keeps what is done,
       marks the run interrupted and exits 1)
When several apply: 3 before 1 before 9 (nightly: its worst, see its help).`

// exitCode lets a command choose its exit status (e.g. 3 on regression)
// once it has printed why.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a command line or configuration mistake.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitStatus maps an error to its documented exit code.
func exitStatus(err error) int {
	var ec exitCode
	var be *compare.BaselineError
	var bb *pipeline.BaselineBuildError
	var ue usageError
	var fe *config.FileError
	var um *compare.UnmeasuredError
	switch {
	case errors.As(err, &ec):
		return int(ec)
	case errors.As(err, &um):
		return exitFailure // not the kernel's failure: the host's
	case errors.As(err, &be), errors.As(err, &bb):
		return exitBaselineFailed
	case errors.As(err, &ue), errors.As(err, &fe), pipeline.Refused(err):
		return exitUsage
	}
	// cobra's own argument and command errors carry no type.
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument"} {
		if strings.HasPrefix(err.Error(), prefix) {
			return exitUsage
		}
	}
	return exitFailure
}

var configFile string

// Version is set at build time (make: git describe); see versionString.
var Version = buildinfo.Unstamped

// quiet (-q/--quiet) drops the progress lines that long commands print
// on stderr; results on stdout, warnings and errors still appear.
var quiet bool

// versionString is this binary's version: make's stamp, else what the Go
// toolchain recorded (internal/buildinfo), and the Go and platform.
func versionString() string {
	return fmt.Sprintf("%s (%s, %s/%s)", buildinfo.Version(Version), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "print kregress's version (make stamps git describe; otherwise the module version or commit Go recorded)",
		Example: `  kregress version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "kregress", versionString())
			return nil
		},
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "kregress",
		Short: "kernel patch regression pipeline: build, boot, trace, compare",
		Long: `kregress builds a Linux kernel for every variant of a patch family, boots
each in a QEMU guest (KVM when a probe guest runs under it, TCG otherwise),
runs a workload through the guest agent kagent under the irqsoff tracer,
stores every run with its provenance in SQLite, and compares the variants
with a Mann-Whitney U test (as benchstat does).

With no --config it runs the built-in default: the rstat flush loop with
the pre-6.15 conditional relock ("stock", baseline) against per-CPU relock
("per-cpu-relock"), on Debian's linux-source-6.12.

Configuration comes from, lowest to highest: the built-in default, the YAML
file given with --config, KREGRESS_* environment variables (key with dots as
underscores, e.g. KREGRESS_VM_CPUS=4), and flags.

` + exitCodesHelp,
		Example: `  kregress run                          # the default experiment, printing its verdict
  kregress run -c my.yaml --repetitions 8
  kregress diff                         # compare the variants of the latest run
  kregress diff 12 --alpha 0.01
  kregress diff 12/stock 13/stock -f markdown   # one variant, two runs
  kregress diff 12 --format html -o report.html
  kregress results list --experiment rstat-relock
  kregress results export 12 -o run12.json
  kregress config                       # print the resolved configuration`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = versionString()
	root.SetVersionTemplate("kregress {{.Version}}\n")
	// --version only: cobra would also take -v, which users read as
	// --verbose.
	root.Flags().Bool("version", false, "print the version (as kregress version does)")
	root.PersistentFlags().BoolVarP(&quiet, "quiet", "q", false, "print no progress lines on stderr (results, warnings and errors still appear)")
	setUsageTemplate(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// Flags are kebab-case (--cache-dir, --vm.memory-mb; see flags.go); a
	// config key's underscore spelling (--cache_dir) is the same flag.
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
	})
	root.PersistentFlags().StringVarP(&configFile, "config", "c", "", "experiment YAML file, or a built-in experiment: "+strings.Join(config.Experiments(), ", ")+" (default rstat-relock)")
	if err := config.AddFlags(root.PersistentFlags(), rootConfigKeys); err != nil {
		panic(err)
	}
	root.AddCommand(newRun(), newSeeds(), newNightly(), newBaseline(), newBisect(), newNoise(), newDiff(), newResults(), newRuns(), newBuild(), newConfig(), newCell(), newSelftests(), newVersion(),
		newExperiments(), newMetrics(), newInit(), newDoctor(), newMan())
	return root
}

// load resolves the config with the command's flags bound.
func load(cmd *cobra.Command) (*config.Config, error) {
	cfg, _, err := config.Load(configFile, cmd.Flags())
	if err != nil {
		return nil, usageError{err}
	}
	return cfg, nil
}

// reporter prints progress: timestamped lines on a terminal, slog lines
// (for CI logs) otherwise.
// With --quiet it prints nothing.
func reporter() pipeline.Reporter {
	st, err := os.Stderr.Stat()
	return reporterTo(os.Stderr, err == nil && st.Mode()&os.ModeCharDevice != 0, quiet)
}

func reporterTo(w io.Writer, terminal, quiet bool) pipeline.Reporter {
	switch {
	case quiet:
		return func(string, ...any) {}
	case terminal:
		return func(format string, args ...any) {
			fmt.Fprintf(w, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
		}
	}
	log := slog.New(slog.NewTextHandler(w, nil))
	return func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }
}

// signalContext is cancelled on the first SIGINT/SIGTERM; a second one
// exits at once.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		fmt.Fprintln(os.Stderr, "\nkregress: interrupted: finishing the current cell's bookkeeping (Ctrl-C again to abort at once)")
		cancel()
		<-ch
		os.Exit(exitAborted)
	}()
	return ctx, cancel
}

func newRun() *cobra.Command {
	var failOnRegression bool
	var alpha float64
	var resume int64
	cmd := &cobra.Command{
		Use:   "run",
		Short: "build, boot and measure every variant, store the runs, print the diff",
		Long: `run builds each variant's kernel (cached by content: the same source, patches,
config and compiler never compile twice), builds the guest image, chooses the
accelerator, then boots the variants interleaved (A B A B ...) for the given
repetitions. Every cell is stored as it ends, with status ok, crashed,
timeout, boot_failed, agent_failed, bad_output or incomplete; Ctrl-C keeps
everything completed and marks the run interrupted.

Quick mode (--patch) measures your own change: the configured base kernel
("base", the baseline) against base + your series ("patched"), with the
configured workload (or --workload.name). Patches apply exactly (git apply
semantics: new, deleted and renamed files, mode changes) unless --kernel.fuzz;
a hunk that does not apply is named with its file, and nothing is built.

An experiment file (-c) can define its own families with variants that
name patches (relative to the file), a ref of kernel.git_tree, cmdline and
a baseline; see the README. --dry-run shows the resolved variants, their
patches and which kernels would be built, and builds nothing.`,
		Example: `  kregress run                                   # the built-in default experiment
  kregress run --patch 0001-my-fix.patch         # base vs base + my patch
  kregress run --patch series.mbox --workload.name execve --repetitions 8
  kregress run --patch ./outgoing/ --dry-run     # what would be built, nothing run
  kregress run -c my-branch.yaml                 # variants from git refs (see README)
  kregress run --fail-on-regression              # exit 3 on a significant regression (CI)
  kregress run -c my.yaml --resume 12            # finish run 12 after a Ctrl-C
  kregress run --vm.accel tcg --vm.memory-mb 2048 --kernel.jobs 3`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			if err := compare.CheckAlpha("--alpha", alpha); err != nil {
				return usageError{err}
			}
			if resume < 0 {
				return usageError{fmt.Errorf("--resume %d is not a run id (see kregress results list)", resume)}
			}
			sel, err := resolveSelection(cmd, cfg)
			if err != nil {
				return err
			}
			// After the selection: --workload.name and --patch decide the
			// workload, and so its primary metrics.
			opts := judgeOptions(cfg, alpha)
			if err := opts.Validate(); err != nil {
				return usageError{fmt.Errorf("--alpha or noise_floor_pct: %w", err)}
			}
			if err := checkJudgeable(cfg, sel, alpha, 1); err != nil {
				return usageError{err}
			}
			// The workload's parameters need no build: a bad one is
			// refused now (exit 2), by --dry-run too, not once the
			// kernels are built.
			if _, err := pipeline.AgentCommand(cfg.Workload); err != nil {
				return usageError{err}
			}
			if dry, _ := cmd.Flags().GetBool("dry-run"); dry {
				return dryRun(cmd, cfg, sel)
			}
			ctx, cancel := signalContext()
			defer cancel()
			// The run's preparation refuses (pipeline.Preflight, exit 2)
			// a primary metric the tree cannot produce and a variant
			// whose patches do not apply, before anything is built; it
			// may judge the workload's fallback primary (cfg says so
			// after it: opts are taken again below).
			rep := reporter()
			store, err := openStore(ctx, cfg.StoreSpec())
			if err != nil {
				return err
			}
			defer store.Close()
			var runID int64
			var prep *pipeline.Prepared
			if resume != 0 {
				runID = resume
				prep, err = pipeline.ResumeExperiment(ctx, cfg, sel, store, resume, rep)
			} else {
				runID, prep, err = pipeline.RunExperiment(ctx, cfg, sel, store, rep)
			}
			if errors.Is(err, pipeline.ErrDetached) {
				fmt.Printf("run %d submitted; its cells store themselves into %s as they end.\nFollow it with `kregress results show %d`; `kregress diff %d` once it is complete.\n", runID, store.Where(), runID, runID)
				return nil
			}
			if err != nil {
				if runID != 0 {
					return fmt.Errorf("run %d: %w (completed cells are stored; `kregress diff %d` compares them, the same command with --resume %d finishes the run)", runID, err, runID, runID)
				}
				return err
			}
			fmt.Printf("\nrun %d stored in %s\n\n", runID, store.Where())
			opts = judgeOptions(cfg, alpha)
			if len(prep.Variants) == 1 {
				rs, err := store.Results(ctx, runID)
				if err != nil {
					return err
				}
				compare.WriteSummary(os.Stdout, prep.Variants[0].Name, rs, compare.Options{Alpha: alpha})
				return nil
			}
			d, err := diffOneRun(ctx, store, runID, opts, "table", os.Stdout)
			if err != nil {
				return err
			}
			failing := len(d.Failing()) > 0
			if debuggate.Enabled(cfg, sel.Family) {
				flagged, err := runDebugPass(ctx, cfg, sel, store, opts, rep)
				if err != nil {
					return err
				}
				failing = failing || flagged
			}
			if failOnRegression && failing {
				return exitCode(exitRegression)
			}
			if failOnRegression {
				// A candidate no cell of which was measured did not
				// pass: exit 1, the host's failure (exitStatus).
				if err := compare.UnmeasuredErr(d); err != nil {
					return err
				}
			}
			if failOnRegression && len(d.Unjudged()) > 0 {
				return exitCode(exitUnjudged)
			}
			return nil
		},
	}
	f := cmd.Flags()
	addConfigFlags(cmd)
	addSourceFlags(cmd)
	addExecutorFlags(cmd, true)
	f.Bool("dry-run", false, "resolve variants and patches, show what would be built, build and run nothing")
	f.Int64Var(&resume, "resume", 0, "finish interrupted run `RUN`, given the -c and flags it was started with: its kernels come from the cache and only its missing cells run, into the same run")
	f.BoolVar(&failOnRegression, "fail-on-regression", false, "exit 3 when a candidate fails (crash, timeout, boot failure) more often than the baseline, a metric regresses significantly, its kernel prints a report (WARNING, BUG, lockdep, stall) the baseline's does not, its selftest outcomes get worse, or the debug pass (debug.pass) flags it; else exit 1 when a candidate was unmeasured (every cell an infrastructure error); else exit 9 when a primary metric was unjudged (for CI)")
	f.Float64Var(&alpha, "alpha", 0.05, "false discovery rate over the metrics judged (Benjamini-Hochberg q of the Mann-Whitney U p-values), in (0, 1)")
	return cmd
}

// loadWithStore resolves the config and opens its store for writing;
// the store must exist: commands that change runs (prune, baseline
// accept) never create an empty store from a typo. The caller closes
// the store.
func loadWithStore(cmd *cobra.Command) (*config.Config, results.Store, error) {
	cfg, err := load(cmd)
	if err != nil {
		return nil, nil, err
	}
	store, err := openExistingStore(cmd.Context(), cfg.StoreSpec())
	if err != nil {
		return nil, nil, err
	}
	return cfg, store, nil
}

// loadReadOnly resolves the config and opens its store read-only (see
// openReadOnly). The caller closes the store.
func loadReadOnly(cmd *cobra.Command) (*config.Config, results.Store, error) {
	cfg, err := load(cmd)
	if err != nil {
		return nil, nil, err
	}
	store, err := openReadOnly(cfg.StoreSpec())
	if err != nil {
		return nil, nil, err
	}
	return cfg, store, nil
}

// mustExist refuses a SQLite store file that does not exist, naming it:
// a command that reads runs never creates an empty store from a typo.
func mustExist(spec string) (string, error) {
	spec, err := store.Normalize(spec)
	if err != nil {
		return "", usageError{err}
	}
	if !store.IsPostgres(spec) {
		if _, err := os.Stat(spec); errors.Is(err, os.ErrNotExist) {
			return "", usageError{fmt.Errorf("no results store at %s: nothing has been run into it (check --store, KREGRESS_STORE or results_dir; kregress run creates it)", store.Redact(spec))}
		}
	}
	return spec, nil
}

// openExistingStore is openStore for commands that change what is there:
// a SQLite file that does not exist is an error naming it, not a new
// empty store.
func openExistingStore(ctx context.Context, spec string) (results.Store, error) {
	spec, err := mustExist(spec)
	if err != nil {
		return nil, err
	}
	return openStore(ctx, spec)
}

// openReadOnly opens an existing store for the commands that only read
// it (results list, show, export, diff, baseline list, bisect show):
// nothing is migrated, no stale run is marked and no file is written,
// so they work on a read-only mount or someone else's store and leave it
// exactly as it was.
func openReadOnly(spec string) (results.Store, error) {
	spec, err := mustExist(spec)
	if err != nil {
		return nil, err
	}
	return store.OpenReadOnly(spec)
}

// openStore opens the store and marks runs whose kregress died (kill -9)
// as interrupted, so they never look like they are still going.
func openStore(ctx context.Context, spec string) (results.Store, error) {
	spec, err := store.Normalize(spec)
	if err != nil {
		return nil, usageError{err}
	}
	s, err := store.Open(spec)
	if err != nil {
		return nil, err
	}
	if n, err := s.MarkStale(ctx); err == nil && n > 0 {
		fmt.Fprintf(os.Stderr, "kregress: marked %d run(s) interrupted whose kregress process is gone\n", n)
	}
	return s, nil
}

// runDebugPass runs the correctness gate's debug pass of an experiment
// (orchestrator/debuggate) as a run of its own and prints its diff; it
// reports whether a candidate was flagged there.
func runDebugPass(ctx context.Context, cfg *config.Config, sel *variants.Selection, store results.Store, opts compare.Options, rep pipeline.Reporter) (bool, error) {
	dcfg := debuggate.Config(cfg)
	fmt.Printf("\ndebug pass of the correctness gate: every variant built with %s, one boot each (%s workload)\n\n", strings.Join(cfg.Debug.Fragments, ", "), cfg.Debug.Duration)
	id, _, err := pipeline.RunExperiment(ctx, dcfg, sel, store, rep)
	if err != nil {
		if id != 0 {
			return false, fmt.Errorf("debug pass, run %d: %w (the measured run is stored)", id, err)
		}
		return false, fmt.Errorf("debug pass: %w (the measured run is stored)", err)
	}
	fmt.Printf("\ndebug pass: run %d stored in %s\n\n", id, store.Where())
	// The debug kernels' figures mean nothing (the checks slow every
	// lock): only failures, reports and selftests are judged.
	opts.GateOnly = true
	d, err := diffOneRun(ctx, store, id, opts, "table", os.Stdout)
	if err != nil {
		return false, err
	}
	return len(d.Failing()) > 0, nil
}
