package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/catalog"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/results"
	senstable "github.com/kregress/kregress/results/sensitivity"
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
up. The header says whether guests here run under KVM or TCG, and why.`,
		Example: `  kregress experiments
  kregress experiments --json
  kregress noise -c rstat-relock-icount --repetitions 16   # then experiments shows what it can see`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			var store results.Store
			if s, err := openReadOnly(cfg.StoreSpec()); err == nil {
				store = s
				defer s.Close()
			}
			accel, why := catalog.HostAccel(cfg.VM.Accel, kvmUnusable)
			infos, err := catalog.List(cmd.Context(), cmd.Flags(), store, accel)
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), infos)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s\n\n", why)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tWORKLOAD\tCLOCK\tBOOTS\tCAN SEE (PRIMARY METRIC)\tWHAT")
			for _, e := range infos {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", e.Name, e.Workload, e.Clock, e.Repetitions, seesText(e), e.Summary)
			}
			return tw.Flush()
		},
	}
	jsonFlag(cmd)
	addConfigFlags(cmd, "experiment", "family", "variants")
	return cmd
}

// kvmUnusable says why guests here cannot use KVM ("" if they may); a
// variable so that tests can fake the host.
var kvmUnusable = vm.KVMUnusable

// seesText is the CAN SEE column of an experiment.
func seesText(e catalog.Info) string {
	if e.NotRunnable != "" {
		return "not with these flags: " + e.NotRunnable
	}
	if len(e.Sees) == 0 {
		if len(e.Primary) == 0 {
			return "gate only: no metric judged"
		}
		return fmt.Sprintf("not measured under %s, %s clock (kregress noise -c %s)", strings.ToUpper(string(e.Accel)), e.Clock, e.Name)
	}
	var parts []string
	for _, s := range e.Sees {
		switch {
		case s.MDEPct == nil && s.CV == 0:
			parts = append(parts, s.Metric+": not measured")
		case s.MDEPct == nil:
			parts = append(parts, s.Metric+": nothing at these boots")
		default:
			parts = append(parts, ">="+senstable.Percent(*s.MDEPct)+" "+s.Metric)
		}
	}
	return strings.Join(parts, ", ") + " (" + e.From + ")"
}
