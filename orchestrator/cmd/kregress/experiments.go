package main

import (
	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/catalog"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/results"
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
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			var store results.Store
			// Without a store, no measured spread: nothing to open is fine.
			if s, err := readOnly.open(cmd.Context(), cfg.StoreSpec()); err == nil {
				store = s
				defer s.Close()
			}
			accel, why := catalog.HostAccel(cfg.VM.Accel, kvmUnusable)
			infos, err := catalog.List(cmd.Context(), cmd.Flags(), store, accel, configFile)
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), infos)
			}
			return catalog.WriteInfos(cmd.OutOrStdout(), why, infos)
		},
	}
	jsonFlag(cmd)
	addConfigFlags(cmd, "experiment", "family", "variants")
	return cmd
}

// kvmUnusable says why guests here cannot use KVM ("" if they may); a
// variable so that tests can fake the host.
var kvmUnusable = vm.KVMUnusable
