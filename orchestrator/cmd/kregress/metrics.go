package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/catalog"
	"github.com/kregress/kregress/orchestrator/config"
)

func newMetrics() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "metrics [WORKLOAD]",
		Short: "list each workload's metrics: name, unit, direction, primary or not (what --metric, primary_metrics and noise_floor_pct accept)",
		Long: `metrics lists what each workload measures, from the one list the guest agent
builds its reports from. A metric's direction says which way is better
(higher, lower) or that it is shown and never judged (info). The primary
metric is judged first, as its own false-discovery family, when an
experiment names no primary_metrics. primary_metrics, noise_floor_pct
and bisect --metric accept the judged names of the experiment's workload.
With -c FILE it lists that experiment's workload, marking the primary
metrics the experiment judges.

Workloads: ` + strings.Join(metrics.Workloads(), ", ") + `.`,
		Example: `  kregress metrics
  kregress metrics rstat
  kregress metrics -c my.yaml            # the experiment's workload, its primary marked
  kregress metrics execve -f json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			workloads, primary, err := metricsOf(cmd, args)
			if err != nil {
				return err
			}
			rows := catalog.Metrics(workloads, primary)
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), rows)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKLOAD\tMETRIC\tUNIT\tBETTER\tPRIMARY\tWHAT")
			for _, r := range rows {
				primary := ""
				if r.Primary {
					primary = "primary"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Workload, r.Name, r.Unit, r.Direction, primary, r.How)
			}
			return tw.Flush()
		},
	}
	jsonFlag(cmd)
	return cmd
}

// metricsOf is the workloads metrics lists and each one's primary
// metrics: WORKLOAD's, or with -c the experiment's workload and the
// primary metrics it judges (primary_metrics, else the workload's);
// else every workload's. -c was ignored before (hostile audit).
func metricsOf(cmd *cobra.Command, args []string) ([]string, func(string) []string, error) {
	workloads := metrics.Workloads()
	own := func(w string) []string { return config.WorkloadPrimary[w] }
	if cmd.Flags().Changed("config") {
		if len(args) == 1 {
			return nil, nil, usage.Errorf("give WORKLOAD or -c FILE, not both: -c lists the metrics of the experiment's workload")
		}
		cfg, err := load(cmd)
		if err != nil {
			return nil, nil, err
		}
		if metrics.For(cfg.Workload.Name) == nil {
			return nil, nil, usage.Errorf("%s: no workload %q (workloads: %s)", configFile, cfg.Workload.Name, strings.Join(workloads, ", "))
		}
		return []string{cfg.Workload.Name}, func(string) []string { return cfg.JudgedPrimary() }, nil
	}
	if len(args) == 1 {
		if metrics.For(args[0]) == nil {
			return nil, nil, usage.Wrap(fmt.Errorf("no workload %q (workloads: %s)", args[0], strings.Join(workloads, ", ")))
		}
		workloads = args
	}
	return workloads, own, nil
}
