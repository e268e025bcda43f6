package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
)

func newNoise() *cobra.Command {
	var variant string
	cmd := &cobra.Command{
		Use:   "noise",
		Short: "measure the instrument: boot one kernel N times, report each metric's spread and the smallest change it can see",
		Long: `noise boots one variant of the experiment (default: its baseline)
--repetitions times (default 8, not the experiment's) and prints, per judged metric: the coefficient of variation between
boots, within a boot (across the irqs-off sampling windows), the rank
correlation with the host's load average at each boot, and the minimum
detectable effect at 5, 8 and 16 boots per side (Mann-Whitney, alpha 0.05,
power 0.8). The run is stored as experiment "noise:<experiment>"; later
diffs of that experiment name the changes that lie below what this setup
can see.`,
		Example: `  kregress noise --repetitions 16
  kregress noise -c pcpu-execve --variant grouped   # another variant than the baseline`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			if err := session.WaitsForCells(cmd.Name(), cfg); err != nil {
				return err
			}
			boots, err := session.NoiseBootsOf(cfg, cmd.Flags().Changed("repetitions"))
			if err != nil {
				return err
			}
			sel, err := resolveSelection(cmd, cfg)
			if err != nil {
				return err
			}
			if sel, err = session.NoiseSelection(cfg, sel, variant, boots); err != nil {
				return err
			}
			return withStoreUntilSignal(cfg.StoreSpec(), func(ctx context.Context, store results.Store) error {
				run, ms, err := (&session.Session{Store: store, Report: reporter(cmd)}).Noise(ctx, cfg, sel)
				if err != nil {
					return err
				}
				if wantJSON(cmd) {
					return format.WriteNoiseJSON(cmd.OutOrStdout(), run, ms)
				}
				format.WriteNoiseRun(cmd.OutOrStdout(), run, ms)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&variant, "variant", "", "the variant to boot (default: the family's baseline)")
	addConfigFlags(cmd, "executor.detach")
	cmd.Flags().Lookup("repetitions").Usage = fmt.Sprintf("boots of the one kernel (default %d here, not the experiment's)", session.NoiseBoots)
	deprecatedAlias(cmd.Flags(), "boots", "repetitions")
	addExecutorFlags(cmd, false)
	addSourceFlags(cmd)
	jsonFlag(cmd)
	return cmd
}
