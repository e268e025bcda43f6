package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

func newNightly() *cobra.Command {
	var nn session.Nightly
	var out *flagkit.Outputs
	cmd := &cobra.Command{
		Use:   "nightly [EXPERIMENT...]",
		Short: "the nightly CI job: tonight's kernel against the last good night, with history",
		Long: `nightly runs each experiment (default: the seeds set) on tonight's kernel -
the tip of --branch in --kernel.git-tree, or the configured source -
and compares every variant with the same variant of the last good night of
that experiment measured alike (same variants, accelerator, vCPUs, memory,
kernel config, command line, workload, QEMU and host CPU). Kernels are
rebuilt only when their build key changed; otherwise the cached one is used.

A night is good when it is complete, every cell is ok, nothing regressed
and every primary metric could be judged;
it then becomes the next night's baseline. With no good night yet, tonight
becomes the baseline and the output says so. "kregress baseline accept RUN"
makes a night that regressed on purpose the baseline.

Metrics whose q lands in the grey zone (alpha/looks <= q < --grey-upper)
are measured again (--extra-rounds more runs, pooled); alpha is split over
the looks, so the stated false-discovery rate holds. --looks.max-minutes and
--looks.max-boots bound each experiment's night: a further run that would
pass them is not started. Change-point detection
(E-Divisive means) over all comparable nights reports slow drifts and the
night each shift happened.

With debug.pass on, each experiment's debug pass (docs/gate.md) runs
after its night is judged, and a finding makes the night a regression;
a night that failed on its cells (exit 1 or 5) gets none: its verdict
already outranks what a finding could add, and it is never a baseline.

Outputs: a table on stdout (-f another format), and with -o FMT=FILE,
repeatable: junit (one testcase per variant and judged metric, failure
rate, new kernel report and selftest flag), markdown (also appended to
$GITHUB_STEP_SUMMARY when set), json, html (an offline trend page: each
metric's nightly median, baselines and change points marked).

Every regression names the commits since the last good night
(GOOD..BAD, N commits, first-parent) and the kregress bisect command that
finds its culprit; --bisect runs those bisects after the night (one per
distinct command, resumable, each confirmed by revert) and links them from
the outputs; the exit code stays the night's. See docs/nightly.md.

Exit codes: 0 every experiment passed (or set its first baseline); 1
infrastructure failure (the harness's fault: an infra_error cell, a variant
unmeasured); 2 usage; 3 a regression
(performance, failure rate, kernel report or selftests); 5 tonight's kernel
did not build, boot or crashed (the kernel's fault); 6 another nightly
holds the lock for this store and cache; 9 unjudged: nothing regressed,
but a primary metric had too few ok boots to reach alpha/looks, a metric
was seen to regress without proof, or a metric's boots could not rule out
that it got rule_out (1.5x) worse (the night is not good and does not
become a baseline). When several apply the
night exits with its worst: 1, then 5, then 3, then 9 (a night with an
infrastructure or kernel failure is not judged on its metrics). An
experiment whose repetitions could never reach alpha is refused before
anything runs.`,
		Example: `  kregress nightly --kernel.git-tree ~/linux --branch master -o junit=nightly.xml
  kregress nightly rstat-every-n pcpu-execve -o markdown=summary.md
  kregress nightly rstat-relock --baseline 41    # compare with run 41, not the last good night
  kregress baseline accept 41 --reason "intended: per-CPU relock merged"`,
		RunE: func(cmd *cobra.Command, args []string) error { return runNightly(cmd, args, &nn, out) },
	}
	// Every key applies to each experiment of the night; experiment,
	// family and variants are each experiment's own.
	addConfigFlags(cmd, "executor.detach", "experiment", "family", "variants")
	addExecutorFlags(cmd, false)
	deprecatedAlias(cmd.Flags(), "git-tree", config.FlagFor("kernel.git_tree"))
	cmd.Flags().StringVar(&nn.Settings.Branch, "branch", "", "measure the tip of this branch of --kernel.git-tree (default: the configured kernel source)")
	out = addOutputFlags(cmd, format.Names(format.NightStdout...), format.Names(format.NightFiles...))
	for _, name := range out.Files {
		flagkit.OutputAlias(cmd.Flags(), name, name) // --junit FILE, ... before -o
	}
	cmd.Flags().Float64Var(&nn.Settings.Alpha, "alpha", 0.05, "false-discovery rate of the night's comparisons, split over the looks, in (0, 1)")
	cmd.Flags().Float64Var(&nn.Settings.GreyUpper, "grey-upper", 0.2, "q below this (and not significant) measures again; in (alpha, 1], 1: every metric that is not significant")
	cmd.Flags().IntVar(&nn.Settings.ExtraRounds, "extra-rounds", 1, "at most this many extra runs for metrics in the grey zone (0: never)")
	cmd.Flags().Int64Var(&nn.Settings.Baseline, "baseline", 0, "compare with this run instead of the last good night; name only its experiment (a night of other experiments too is refused)")
	cmd.Flags().Int64SliceVar(&nn.Settings.Resume, "resume", nil, "finish run `RUN` (its experiment's newest, interrupted or failed), keeping its completed cells, as tonight's run of that experiment; repeat for more")
	cmd.Flags().BoolVar(&nn.Bisect, "bisect", false, "after the night, run the bisect each regression names (one per distinct command; a stored bisect of the same search is resumed or reused), confirm each culprit by revert, and link them from the outputs; the exit code stays the night's")
	flagkit.DurationVar(cmd.Flags(), &nn.Settings.KeepArtifacts, "keep-artifacts", 0, "retention: after each experiment, delete the artifact directories (consoles, traces) of its runs older than this, e.g. 30d, except the baselines a later night may use; the runs stay in the store (0: keep all)")
	return cmd
}

// runNightly is kregress nightly: the night (session.Nightly) with the
// command's outputs and bisects, its worst verdict as the exit code.
func runNightly(cmd *cobra.Command, args []string, nn *session.Nightly, out *flagkit.Outputs) error {
	base, err := load(cmd)
	if err != nil {
		return err
	}
	stdout, files, err := out.Resolve()
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	nn.Experiments = session.NightExperiments(args, configFile)
	nn.Load, nn.Open, nn.Report = config.Loader(cmd.Flags()), openRecording, reporter(cmd)
	nn.Stdout, nn.Format, nn.Files, nn.Stderr = cmd.OutOrStdout(), format.NightFormat(stdout), files, cmd.ErrOrStderr()
	if firstBuild != nil {
		nn.Runner = stoppedAtBuild{firstBuild}
	}
	// Another nightly holding the lock is a session.LockedError: exit 6.
	night, err := nn.Run(ctx, base)
	if err != nil {
		return err
	}
	return verdict.End(nightreport.Worst(night))
}

func newBaseline() *cobra.Command {
	cmd := &cobra.Command{
		Use: "baseline",
		Example: `  kregress baseline list
  kregress baseline accept 41 --reason "intended: per-CPU relock merged"`,
		Short: "accept a run as its experiment's nightly baseline, or list who accepted what",
	}
	var reason string
	accept := &cobra.Command{
		Use:     "accept RUN --reason TEXT",
		Example: `  kregress baseline accept 41 --reason "intended: per-CPU relock merged"`,
		Short:   "make RUN the baseline of later nights (kept with who, when and why)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := nightly.NewAcceptance(args[0], reason)
			if err != nil {
				return err
			}
			return withStore(cmd, store.Changing, func(_ *config.Config, s results.Store) error {
				return a.Record(cmd.Context(), s, cmd.OutOrStdout())
			})
		},
	}
	accept.Flags().StringVar(&reason, "reason", "", "why (required)")
	list := &cobra.Command{
		Use: "list [RUN...]",
		Example: `  kregress baseline list
  kregress baseline list 41 42`,
		Short: "show the marks (good, accepted) of runs (default: the latest 20)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, store.ReadOnly, func(_ *config.Config, s results.Store) error {
				rows, err := nightly.MarksOf(cmd.Context(), s, args)
				if err != nil {
					return err
				}
				return printJSONOr(cmd, rows, func(w io.Writer) error { return format.WriteMarks(w, rows) })
			})
		},
	}
	jsonFlag(list)
	cmd.AddCommand(accept, list)
	return cmd
}
