package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/orchestrator/catalog"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/orchestrator/vm"
)

func newExperiments() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "experiments",
		Short: "list the built-in experiments (-c NAME): what each measures, and the smallest change it can see on this host",
		Long: `experiments lists the experiments built into kregress, the names -c accepts.
For each: its family and variants, workload, guest clock (host or icount),
boots per variant, the primary metrics it judges, and what it can see on
this host: the smallest change of each primary metric that its boots per
variant would find (power 0.8, alpha 0.05 split over its candidates and
primary metrics), computed from the spread between boots of one kernel.
That spread comes from the latest "kregress noise -c NAME" run in the
store when there is one (this host, measured); otherwise from the measured
table of docs/sensitivity.md, only when it has rows for this experiment
under this host's accelerator (KVM or TCG), guest clock, vCPU count and
workload duration. Without either it says "not measured": the spread
depends on the host, the accelerator and its load, so no figure is made
up. The header says whether guests here run under KVM or TCG, and why.
With -c FILE it lists the file's experiment after the built-ins.`,
		Example: `  kregress experiments
  kregress experiments --json
  kregress experiments -c my.yaml        # the built-ins, then my.yaml's experiment
  kregress noise -c rstat-relock-icount --repetitions 16   # then experiments shows what it can see`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			infos, why, err := catalog.ListHere(cmd.Context(), catalog.Request{Flags: cmd.Flags(), File: configFile, KVMUnusable: kvmUnusable})
			if err != nil {
				return err
			}
			return printJSONOr(cmd, infos, func(w io.Writer) error { return catalog.WriteInfos(w, why, infos) })
		},
	}
	jsonFlag(cmd)
	addConfigFlags(cmd, "experiment", "family", "variants")
	return cmd
}

// kvmUnusable says why guests here cannot use KVM ("" if they may); a
// variable so that tests can fake the host.
var kvmUnusable = vm.KVMUnusable

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

Workloads: ` + strings.Join(workload.Sorted(), ", ") + `.`,
		Example: `  kregress metrics
  kregress metrics rstat
  kregress metrics -c my.yaml            # the experiment's workload, its primary marked
  kregress metrics execve -f json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fileGiven := cmd.Flags().Changed("config") // even as -c ""
			rows, err := catalog.ListMetrics(catalog.MetricsQuery{Args: args, File: configFile, FileGiven: fileGiven, Flags: cmd.Flags()})
			if err != nil {
				return err
			}
			return printJSONOr(cmd, rows, func(w io.Writer) error { return catalog.WriteMetrics(w, rows) })
		},
	}
	jsonFlag(cmd)
	return cmd
}

func newSelftests() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "selftests",
		Example: `  kregress selftests known               # the failures diagnosed for the built-in guest`,
		Short:   "about the correctness gate's kernel selftests",
	}
	known := &cobra.Command{
		Use:     "known",
		Example: `  kregress selftests known`,
		Short:   "list the selftests known to fail on the built-in guest, and why",
		Long: `known lists the cgroup selftests that fail on kregress's built-in guest
(tinyconfig + guest.config, initramfs root, 2 vCPUs) on every kernel, each
with its diagnosed reason. diff shows their failures as known; any other
failure is unexplained, and a candidate that fails a test its baseline
passes is flagged either way, unless the test is marked flaky (it fails
some of the time on every kernel): then the change is shown, not flagged.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printJSONOr(cmd, selftests.KnownList(), selftests.WriteKnown)
		},
	}
	jsonFlag(known)
	cmd.AddCommand(known)
	return cmd
}
