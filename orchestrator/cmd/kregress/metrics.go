package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/catalog"
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
			rows, err := metricsOf(cmd, args)
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), rows)
			}
			return catalog.WriteMetrics(cmd.OutOrStdout(), rows)
		},
	}
	jsonFlag(cmd)
	return cmd
}

// metricsOf is the rows metrics lists (catalog.MetricsOf): WORKLOAD's,
// or with -c the experiment's workload and the primary metrics it judges;
// else every workload's. -c was ignored before (hostile audit).
func metricsOf(cmd *cobra.Command, args []string) ([]catalog.MetricRow, error) {
	workload := ""
	if len(args) == 1 {
		workload = args[0]
	}
	if !cmd.Flags().Changed("config") {
		return catalog.MetricsOf(workload, nil, "")
	}
	if workload != "" {
		return nil, usage.Errorf("give WORKLOAD or -c FILE, not both: -c lists the metrics of the experiment's workload")
	}
	cfg, err := load(cmd)
	if err != nil {
		return nil, err
	}
	return catalog.MetricsOf("", cfg, configFile)
}
