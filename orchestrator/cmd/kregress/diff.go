package main

import (
	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/results/diffreport"
	"github.com/kregress/kregress/results/format"
)

func newDiff() *cobra.Command {
	var req diffreport.Request
	var out *flagkit.Outputs
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
  diff 12 13           each variant present in both runs: 13's against 12's (the first is the baseline)
  diff 12/stock 13/per-cpu-relock
  diff 12 12 --against postgres://team@db/kregress   run 12 here vs there
  diff a.json#stock b.json#stock

Two sets from different runs must have been measured alike: the same
accelerator, vCPUs (online and possible), memory, kernel config, kernel
command line, workload and its arguments, QEMU version and host CPU.
Otherwise diff names the differences and stops (exit 2) unless --force.

When the sample sizes cannot reach alpha (fewer than 4 runs per side at
0.05; more in a larger family) a metric is "too-few", never "~".
Formats: ` + format.Describe(diffreport.Formats) + `.
-f chooses what goes to stdout; -o FMT=FILE (repeatable) writes more
formats to files, and a bare -o FILE writes -f's format there instead of
stdout.`,
		Args: cobra.MaximumNArgs(2),
		// Resolve the sets, judge them, render every output asked for,
		// end as the verdict says.
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			stdout, files, err := out.Resolve()
			if err != nil {
				return err
			}
			req.Sets, req.Store, req.Judging = args, cfg.StoreSpec(), judging.Options(cfg, req.Alpha, judging.AnyWorkload)
			rep, err := diffreport.Load(cmd.Context(), req, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if err := emit(cmd, stdout, files, rep.Write); err != nil {
				return err
			}
			return rep.Gate(req.Gate)
		},
	}
	cmd.Flags().Float64Var(&req.Alpha, "alpha", 0.05, "false discovery rate over the metrics judged (Benjamini-Hochberg q of the Mann-Whitney U p-values), in (0, 1)")
	out = addOutputFlags(cmd, diffreport.Formats, diffreport.Formats)
	jsonShorthand(cmd)
	cmd.Flags().StringVar(&req.Against, "against", "", "read the second SET from this store (SQLite file or postgres:// DSN)")
	// The name run and the configuration give the setting
	// (noise_floor_pct); --noise was diff's own.
	cmd.Flags().StringToStringVar(&req.Noise, "noise-floor-pct", nil, "noise floor per metric in %, over the experiment's noise_floor_pct, e.g. --noise-floor-pct reads_per_sec=2")
	deprecatedAlias(cmd.Flags(), "noise", "noise-floor-pct")
	// rule_out in the configuration; "rule-out" here as there.
	cmd.Flags().Float64Var(&req.RuleOut, "rule-out", 0, "a pass needs every metric's boots to rule out a change this many times worse (default: the experiment's rule_out, 1.5); inf: off")
	cmd.Flags().BoolVar(&req.ByHost, "by-host", false, "when a run's cells ran on several hosts (a cluster executor), compare the variants within each host, one table per host")
	cmd.Flags().BoolVar(&req.Force, "force", false, "compare two sets even when they were measured differently (accelerator, vCPUs, memory, kernel config, command line, workload, QEMU, host CPU); the differences are printed")
	cmd.Flags().BoolVar(&req.Gate, "fail-on-regression", false, "exit 3 when a candidate fails (crash, timeout, boot failure) more often than the baseline, a metric regresses significantly, its kernel prints a report (WARNING, BUG, lockdep, stall) the baseline's does not, or its selftest outcomes get worse; else exit 1 when a candidate was unmeasured (every cell an infrastructure error); else exit 9 when a primary metric had too few boots (too-few), a metric was seen to regress without proof, a metric's boots could not rule out the rule-out margin, or a timing metric's regression was not called because the sides ran at unlike host loads on the host's clock (load_bound)")
	return cmd
}
