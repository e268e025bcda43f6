// Command kregress builds kernels with candidate patches, boots each in
// QEMU, runs a workload under the irqsoff tracer through the guest agent,
// stores every run with its provenance and says what changed.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/buildinfo"
	"github.com/kregress/kregress/internal/cmdtree"
	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/interrupt"
	"github.com/kregress/kregress/internal/manpages"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs one kregress command line with a fresh command tree,
// writing to stdout and stderr, and returns its exit status: main's
// whole job, and what the CLI tests call in-process.
func execute(args []string, stdout, stderr io.Writer) int {
	err := cmdtree.Execute(newRoot(), args, stdout, stderr)
	return int(verdict.Report(stderr, "kregress", err))
}

var configFile string

// Version is set at build time (make: git describe); see versionString.
var Version = buildinfo.Unstamped

// quiet (-q/--quiet) drops the progress lines that long commands print
// on stderr; results on stdout, warnings and errors still appear.
var quiet bool

// logFormat (--log-format) is how progress lines are printed: auto (an
// updating line per phase on a terminal, slog lines otherwise), or slog
// lines as text or json wherever they go.
var logFormat string

// versionString is this binary's version: make's stamp, else what the Go
// toolchain recorded (internal/buildinfo), and the Go and platform.
func versionString() string { return buildinfo.Describe(Version).String() }

func newVersion() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "print kregress's version (make stamps git describe; otherwise the module version or commit Go recorded)",
		Example: `  kregress version
  kregress version -f json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := buildinfo.Describe(Version)
			return printJSONOr(cmd, info, func(w io.Writer) error { return info.Print(w, "kregress") })
		},
	}
	jsonFlagBeside(cmd, "text", "the line")
	return cmd
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

With no --config it runs the built-in default, on Debian's
linux-source-6.12: "stock", the baseline, is that tree with the rstat flush
loop's pre-6.15 conditional relock restored (not the unmodified tree),
against "per-cpu-relock", the tree as shipped (per-CPU relock, upstream
0efc297a3c49). With --patch the baseline is "base", the unmodified tree.

Configuration comes from, lowest to highest: the built-in default, the YAML
file given with --config, KREGRESS_* environment variables (key with dots as
underscores, e.g. KREGRESS_VM_CPUS=4), and flags.

` + verdict.Help,
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
	flagkit.ChoiceVar(root.PersistentFlags(), &logFormat, "log-format", progress.Formats, "how progress lines are printed on stderr (auto: one updating line per phase on a terminal, slog text lines otherwise)")
	setUsageTemplate(root)
	root.PersistentFlags().StringVarP(&configFile, "config", "c", "", "experiment YAML file, or a built-in experiment: "+strings.Join(config.Experiments(), ", ")+" (default rstat-relock)")
	config.MustAddFlags(root.PersistentFlags(), rootConfigKeys)
	root.AddCommand(newRun(), newSeeds(), newNightly(), newBaseline(), newBisect(), newNoise(), newDiff(), newResults(), newRuns(), newBuild(), newConfig(), newCell(), newSelftests(), newVersion(),
		newExperiments(), newMetrics(), newInit(), newDoctor(), newMan())
	// Flags are kebab-case (--cache-dir, --vm.memory-mb; see flags.go); a
	// config key's underscore spelling (--cache_dir) is the same flag.
	// kregress results frob and kregress help frob are usage errors,
	// as kregress frob is (cobra printed help and exited 0).
	cmdtree.ApplyRules(root)
	addCompletions(root)
	return root
}

// load resolves the config with the command's flags bound.
func load(cmd *cobra.Command) (*config.Config, error) {
	for _, w := range config.UnknownEnv(os.Environ()) {
		fmt.Fprintln(cmd.ErrOrStderr(), "kregress: warning: "+w)
	}
	cfg, _, err := config.Load(configFile, cmd.Flags())
	if err != nil {
		return nil, usage.Wrap(err)
	}
	if err := benchmarkHostFlags(cmd, cfg); err != nil {
		return nil, usage.Wrap(err)
	}
	return cfg, nil
}

// reporter prints cmd's progress on its stderr (progress.For) in the
// --log-format: with --quiet only warnings.
func reporter(cmd *cobra.Command) progress.Reporter {
	return progress.For(cmd.ErrOrStderr(), quiet, logFormat)
}

// signalContext is cancelled on the first SIGINT/SIGTERM; a second one
// exits at once (internal/interrupt).
func signalContext() (context.Context, context.CancelFunc) {
	return interrupt.Context(os.Stderr, "\nkregress: interrupted: finishing the current cell's bookkeeping (Ctrl-C again to abort at once)", int(verdict.ExitAborted))
}

// openRecording opens the store for a command that records runs
// (store.Recording), saying on stderr which dead runs it marked: how a
// session opens its store.
func openRecording(ctx context.Context, spec string) (results.Store, error) {
	return store.OpenFor(ctx, spec, store.Recording, os.Stderr)
}

// withStore resolves the config, opens its store for access a, runs fn
// with both and closes the store (store.With).
func withStore(cmd *cobra.Command, a store.Access, fn func(cfg *config.Config, s results.Store) error) error {
	cfg, err := load(cmd)
	if err != nil {
		return err
	}
	return store.With(cmd.Context(), cfg.StoreSpec(), a, os.Stderr, func(s results.Store) error { return fn(cfg, s) })
}

// newMan writes the man pages, one per command, from the command tree
// itself (cobra's doc generator), so they never disagree with --help.
// make man and make install call it; it is listed, for a user whose
// install has no man pages (a go install, a copied binary).
func newMan() *cobra.Command {
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "write a man page (section 1) for every command into DIR",
		Example: `  kregress man bin/man/man1`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return manpages.Write(cmd.Root(), args[0], "kregress "+versionString(), cmd.ErrOrStderr())
		},
	}
}
