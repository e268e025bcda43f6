package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
)

// metricRow is one metric of one workload, as `kregress metrics` prints it.
type metricRow struct {
	Workload string `json:"workload"`
	metrics.Spec
	Judged  bool `json:"judged"`
	Primary bool `json:"primary"`
}

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

Workloads: ` + strings.Join(metrics.Workloads(), ", ") + `.`,
		Example: `  kregress metrics
  kregress metrics rstat
  kregress metrics execve --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			workloads := metrics.Workloads()
			if len(args) == 1 {
				if metrics.For(args[0]) == nil {
					return usage.Wrap(fmt.Errorf("no workload %q (workloads: %s)", args[0], strings.Join(workloads, ", ")))
				}
				workloads = args
			}
			var rows []metricRow
			for _, w := range workloads {
				for _, s := range metrics.For(w) {
					rows = append(rows, metricRow{Workload: w, Spec: s, Judged: s.Judged(), Primary: slices.Contains(config.WorkloadPrimary[w], s.Name)})
				}
			}
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
