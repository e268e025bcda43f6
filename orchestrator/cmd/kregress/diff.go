package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/diffreport"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

// diffFlags are diff's own flags.
type diffFlags struct {
	alpha                           float64
	against                         string
	noise                           map[string]string
	failOnRegression, force, byHost bool
	out                             *flagkit.Outputs
}

func newDiff() *cobra.Command {
	var fl diffFlags
	cmd := &cobra.Command{
		Use: "diff [SET [SET]]",
		Example: `  kregress diff                           # the latest complete run
  kregress diff 12 13 -f markdown
  kregress diff 12 -o html=report.html -o csv=report.csv   # the table, and two files
  kregress diff 12 --by-host              # a cluster run, variants compared within each host`,
		Short: "compare result sets: the variants of a run, a variant across runs, stores or exported files",
		Long: `diff compares result sets with the statistics benchstat uses: per metric the
median with its 95% confidence interval, the % change, the Mann-Whitney U
p-value and n, labelled improvement or regression by the metric's direction
("~" when not significant at --alpha, or within the metric's noise floor),
then which code held the irqs-off worst section in each set.

A SET is RUN (a run id), RUN/VARIANT, FILE.json (from "results export") or
FILE.json#VARIANT.

  diff                 the latest run's variants against its baseline
  diff 12              run 12's variants against its baseline
  diff 12 13           each variant present in both runs: 12's against 13's
  diff 12/stock 13/per-cpu-relock
  diff 12 12 --against postgres://team@db/kregress   run 12 here vs there
  diff a.json#stock b.json#stock

Two sets from different runs must have been measured alike: the same
accelerator, vCPUs (online and possible), memory, kernel config, kernel
command line, workload and its arguments, QEMU version and host CPU.
Otherwise diff names the differences and stops (exit 2) unless --force.

When the sample sizes cannot reach alpha (fewer than 4 runs per side at
0.05; more in a larger family) a metric is "unjudged", never "~".
Formats: table, markdown, json, csv, lkp (the 0-day bot's %stddev %change
view), html (a self-contained report with plots). -f chooses what goes to
stdout; -o FMT=FILE (repeatable) writes more formats to files, and a bare
-o FILE writes -f's format there instead of stdout.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return diffCommand(cmd, args, &fl) },
	}
	cmd.Flags().Float64Var(&fl.alpha, "alpha", 0.05, "false discovery rate over the metrics judged (Benjamini-Hochberg q of the Mann-Whitney U p-values), in (0, 1)")
	fl.out = addOutputFlags(cmd, diffreport.Formats, diffreport.Formats)
	cmd.Flags().StringVar(&fl.against, "against", "", "read the second SET from this store (SQLite file or postgres:// DSN)")
	cmd.Flags().StringToStringVar(&fl.noise, "noise", nil, "noise floor per metric in %, e.g. --noise reads_per_sec=2")
	cmd.Flags().BoolVar(&fl.byHost, "by-host", false, "when a run's cells ran on several hosts (a cluster executor), compare the variants within each host, one table per host")
	cmd.Flags().BoolVar(&fl.force, "force", false, "compare two sets even when they were measured differently (accelerator, vCPUs, memory, kernel config, command line, workload, QEMU, host CPU); the differences are printed")
	cmd.Flags().BoolVar(&fl.failOnRegression, "fail-on-regression", false, "exit 3 when a candidate fails (crash, timeout, boot failure) more often than the baseline, a metric regresses significantly, its kernel prints a report (WARNING, BUG, lockdep, stall) the baseline's does not, or its selftest outcomes get worse; else exit 1 when a candidate was unmeasured (every cell an infrastructure error); else exit 9 when a primary metric was unjudged")
	return cmd
}

// diffCommand is kregress diff: resolve the sets, judge them, render
// every output asked for, map the verdict to the exit code.
func diffCommand(cmd *cobra.Command, args []string, fl *diffFlags) error {
	cfg, err := load(cmd)
	if err != nil {
		return err
	}
	opts, err := judging.DiffOptions(cfg, fl.alpha, fl.noise)
	if err != nil {
		return err
	}
	stdout, files, err := fl.out.Resolve()
	if err != nil {
		return err
	}
	here, err := store.OpenFor(cmd.Context(), cfg.StoreSpec(), store.ReadOnly, nil)
	if err != nil {
		return err
	}
	defer here.Close()
	other := here
	if fl.against != "" && len(args) == 2 {
		if other, err = store.OpenFor(cmd.Context(), fl.against, store.ReadOnly, nil); err != nil {
			return err
		}
		defer other.Close()
	}
	rep, note, err := diffreport.Build(cmd.Context(), here, other, diffreport.Request{Sets: args, Opts: opts, ByHost: fl.byHost, Force: fl.force})
	if note != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "kregress: "+note)
	}
	if err != nil {
		return err
	}
	if err := emit(cmd, stdout, files, func(f string, w io.Writer) error { return rep.Render(w, format.Format(f)) }); err != nil {
		return err
	}
	if !fl.failOnRegression {
		return nil
	}
	// --fail-on-regression's exit (compare.Gate): 3 when something
	// failed, else 1 when a candidate was unmeasured, else 9 when a
	// primary metric was unjudged.
	v, err := compare.Gate(false, rep.Verdicts...)
	if err != nil {
		return err
	}
	return verdict.End(v)
}
