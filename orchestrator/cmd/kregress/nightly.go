package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

func newNightly() *cobra.Command {
	var fl nightFlags
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
the looks, so the stated false-discovery rate holds. Change-point detection
(E-Divisive means) over all comparable nights reports slow drifts and the
night each shift happened.

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
but a primary metric had too few ok boots to reach alpha/looks (the night
is not good and does not become a baseline). When several apply the
night exits with its worst: 1, then 5, then 3, then 9 (a night with an
infrastructure or kernel failure is not judged on its metrics). An
experiment whose repetitions could never reach alpha is refused before
anything runs.`,
		Example: `  kregress nightly --kernel.git-tree ~/linux --branch master -o junit=nightly.xml
  kregress nightly rstat-every-n pcpu-execve -o markdown=summary.md
  kregress nightly rstat-relock --baseline 41    # compare with run 41, not the last good night
  kregress baseline accept 41 --reason "intended: per-CPU relock merged"`,
		RunE: func(cmd *cobra.Command, args []string) error { return runNightly(cmd, args, &fl) },
	}
	// Every key applies to each experiment of the night; experiment,
	// family and variants are each experiment's own.
	addConfigFlags(cmd, "executor.detach", "experiment", "family", "variants")
	addExecutorFlags(cmd, false)
	deprecatedAlias(cmd.Flags(), "git-tree", config.FlagFor("kernel.git_tree"))
	f := cmd.Flags()
	f.StringVar(&fl.branch, "branch", "", "measure the tip of this branch of --kernel.git-tree (default: the configured kernel source)")
	fl.out = addOutputFlags(cmd, append([]string{string(format.NightTable)}, nightFormats...), nightFormats)
	for _, name := range nightFormats {
		outputAlias(cmd, name, name) // --junit FILE, ... before -o
	}
	f.Float64Var(&fl.alpha, "alpha", 0.05, "false-discovery rate of the night's comparisons, split over the looks, in (0, 1)")
	f.Float64Var(&fl.greyUpper, "grey-upper", 0.2, "q below this (and not significant) measures again; in (alpha, 1], 1: every metric that is not significant")
	f.IntVar(&fl.extraRounds, "extra-rounds", 1, "at most this many extra runs for metrics in the grey zone (0: never)")
	f.Int64Var(&fl.baseline, "baseline", 0, "compare with this run (of the same experiment) instead of the last good night")
	f.Int64SliceVar(&fl.resume, "resume", nil, "finish run `RUN` (its experiment's newest, interrupted or failed), keeping its completed cells, as tonight's run of that experiment; repeat for more")
	f.BoolVar(&fl.runBisects, "bisect", false, "after the night, run the bisect each regression names (one per distinct command; a stored bisect of the same search is resumed or reused), confirm each culprit by revert, and link them from the outputs; the exit code stays the night's")
	f.DurationVar(&fl.keepArtifacts, "keep-artifacts", 0, "retention: after each experiment, delete the artifact directories (consoles, traces) of its runs older than this, e.g. 720h, except the baselines a later night may use; the runs stay in the store (0: keep all)")
	return cmd
}

// nightFormats are the night's outputs besides its table (JUnit XML,
// the Markdown summary, JSON and the offline trend page), as -o names
// them.
var nightFormats = formatNames(format.NightFiles)

// formatNames are formats as flags name them.
func formatNames[F ~string](fs []F) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return names
}

// nightFlags are nightly's own flags.
type nightFlags struct {
	branch           string
	alpha, greyUpper float64
	extraRounds      int
	baseline         int64
	keepArtifacts    time.Duration
	resume           []int64
	runBisects       bool
	out              *outputFlags
}

// runNightly is kregress nightly: under the nightly lock, each
// experiment through a session, the outputs, the handed-off bisects,
// and the night's worst verdict as the exit code.
func runNightly(cmd *cobra.Command, args []string, fl *nightFlags) error {
	base, err := load(cmd)
	if err != nil {
		return err
	}
	if err := waitsForCells(cmd, base); err != nil {
		return err
	}
	if fl.keepArtifacts < 0 {
		return usage.Errorf("--keep-artifacts %s is negative (0 keeps every artifact)", fl.keepArtifacts)
	}
	stdout, files, err := fl.out.resolve()
	if err != nil {
		return err
	}
	experiments := args
	if len(experiments) == 0 {
		if configFile != "" {
			experiments = []string{configFile}
		} else {
			experiments = session.Seeds
		}
	}
	ctx, cancel := signalContext()
	defer cancel()
	unlock, err := session.NightlyLock(base)
	var held *filelock.HeldError
	if errors.As(err, &held) {
		fmt.Fprintf(cmd.ErrOrStderr(), "kregress: another nightly is running on this store and cache: %s\n", held.Holder)
		return exitCode(verdict.ExitLocked)
	}
	if err != nil {
		return err
	}
	defer unlock()
	store, err := openStore(ctx, base.StoreSpec())
	if err != nil {
		return err
	}
	defer store.Close()
	rep := reporter(cmd)
	n := session.NewNight(store, rep, func(e string) (*config.Config, error) {
		cfg, _, err := config.Load(e, cmd.Flags())
		return cfg, err
	}, session.NightSettings{Branch: fl.branch, Alpha: fl.alpha, GreyUpper: fl.greyUpper, ExtraRounds: fl.extraRounds, Baseline: fl.baseline, Resume: fl.resume})
	if err := n.Check(experiments); err != nil {
		return usage.Wrap(err)
	}
	if err := n.CheckResume(ctx, experiments); err != nil {
		return usage.Wrap(err)
	}
	out := cmd.OutOrStdout()
	var night []*nightreport.Result
	for _, e := range experiments {
		rep("=== nightly: %s", e)
		r := n.Run(ctx, e)
		night = append(night, r)
		if stdout == string(format.NightTable) {
			format.WriteNightExperiment(out, r)
		}
		if ctx.Err() != nil {
			break
		}
		n.PruneArtifactsOlderThan(ctx, e, fl.keepArtifacts)
	}
	if stdout != "" && stdout != string(format.NightTable) {
		if err := renderNight(night)(stdout, out); err != nil {
			return err
		}
	}
	if err := writeNightOutputs(cmd.ErrOrStderr(), night, files, true); err != nil {
		return err
	}
	if fl.runBisects && ctx.Err() == nil && len(nightreport.Handoffs(night)) > 0 {
		// After the night, whose outputs are already written (a long
		// bisect does not hold them back); rewritten with the bisects
		// linked.
		handoffBisects(ctx, cmd, store, night, htmlOutput(files), rep)
		if err := writeNightOutputs(cmd.ErrOrStderr(), night, files, false); err != nil {
			return err
		}
	}
	return exitWith(nightreport.Worst(night))
}

// htmlOutput is the file -o html=FILE names ("": none): the handed-off
// bisects' reports go beside it.
func htmlOutput(files []fileOutput) string {
	for _, f := range files {
		if f.format == "html" {
			return f.path
		}
	}
	return ""
}

// renderNight renders the night in one of nightFormats, or its table.
func renderNight(night []*nightreport.Result) func(f string, w io.Writer) error {
	return func(f string, w io.Writer) error { return format.WriteNight(w, format.NightFormat(f), night) }
}

// writeNightOutputs writes the night's -o files; with summary, its
// Markdown also goes to $GITHUB_STEP_SUMMARY.
func writeNightOutputs(errw io.Writer, night []*nightreport.Result, files []fileOutput, summary bool) error {
	if err := writeOutputs(errw, files, renderNight(night)); err != nil {
		return err
	}
	if !summary {
		return nil
	}
	return format.AppendNightStepSummary(night)
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
			if strings.TrimSpace(reason) == "" {
				return usage.Wrap(errors.New("--reason is required: say why this run is the new baseline"))
			}
			var id int64
			if _, err := fmt.Sscan(args[0], &id); err != nil {
				return usage.Wrap(fmt.Errorf("%q is not a run id", args[0]))
			}
			_, store, err := loadWithStore(cmd)
			if err != nil {
				return err
			}
			defer store.Close()
			who := cmp.Or(os.Getenv("USER"), "unknown")
			if err := nightly.Accept(cmd.Context(), store, id, who, reason); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %d accepted as a baseline by %s: %s\n", id, who, reason)
			return nil
		},
	}
	accept.Flags().StringVar(&reason, "reason", "", "why (required)")
	list := &cobra.Command{
		Use: "list [RUN...]",
		Example: `  kregress baseline list
  kregress baseline list 41 42`,
		Short: "show the marks (good, accepted) of runs (default: the latest 20)",
		RunE: func(cmd *cobra.Command, args []string) error {
			_, store, err := loadReadOnly(cmd)
			if err != nil {
				return err
			}
			defer store.Close()
			var ids []int64
			for _, a := range args {
				var id int64
				if _, err := fmt.Sscan(a, &id); err != nil {
					return usage.Wrap(fmt.Errorf("%q is not a run id", a))
				}
				ids = append(ids, id)
			}
			rows, err := nightly.ListMarks(cmd.Context(), store, ids)
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), rows)
			}
			for _, m := range rows {
				fmt.Fprintf(cmd.OutOrStdout(), "run %d\t%s\t%s\t%s\t%s\n", m.RunID, m.Kind, m.At.Local().Format("2006-01-02 15:04"), m.Who, m.Reason)
			}
			return nil
		},
	}
	jsonFlag(list)
	cmd.AddCommand(accept, list)
	return cmd
}
