package main

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/catalog"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/noise"
	"github.com/kregress/kregress/results/verdict"
)

// noiseBoots is noise's default number of boots.
const noiseBoots = 8

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
			if err := waitsForCells(cmd, cfg); err != nil {
				return err
			}
			// Its own default: the experiment's repetitions are for
			// comparing, and 5 boots say little about the spread.
			boots := noiseBoots
			if cmd.Flags().Changed("repetitions") {
				boots = cfg.Repetitions
			}
			if boots < 3 || boots > config.MaxRepetitions {
				return usage.Wrap(fmt.Errorf("--repetitions %d: want 3..%d (16 gives a usable estimate)", boots, config.MaxRepetitions))
			}
			sel, err := resolveSelection(cmd, cfg)
			if err != nil {
				return err
			}
			if variant == "" {
				variant = sel.Family.Baseline
			}
			one := sel.Variant(variant)
			if one == nil {
				return usage.Wrap(fmt.Errorf("--variant %q is not measured by this experiment (it has: %s)", variant, strings.Join(sel.Family.VariantNames(), ", ")))
			}
			fam := *sel.Family
			fam.Baseline = one.Name
			sel = &variants.Selection{Family: &fam, Variants: []*patches.Variant{one}}
			cfg.Experiment, cfg.Repetitions = catalog.NoisePrefix+cfg.Experiment, boots
			ctx, store, done, err := openStoreUntilSignal(cfg.StoreSpec())
			if err != nil {
				return err
			}
			defer done()
			id, _, err := (&session.Session{Store: store, Report: reporter(cmd)}).Measure(ctx, cfg, sel, 0)
			if err != nil {
				return err
			}
			rs, err := store.Results(ctx, id)
			if err != nil {
				return err
			}
			ms := noise.Analyze(rs)
			if wantJSON(cmd) {
				return format.WriteNoiseJSON(cmd.OutOrStdout(), format.NoiseRun{ID: id, Experiment: cfg.Experiment, Variant: variant, Cells: len(rs)}, ms)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "\nrun %d: %s, %d boots of %s\n\n", id, cfg.Experiment, len(rs), variant)
			format.WriteNoise(cmd.OutOrStdout(), ms)
			return nil
		},
	}
	cmd.Flags().StringVar(&variant, "variant", "", "the variant to boot (default: the family's baseline)")
	addConfigFlags(cmd, "executor.detach")
	cmd.Flags().Lookup("repetitions").Usage = fmt.Sprintf("boots of the one kernel (default %d here, not the experiment's)", noiseBoots)
	deprecatedAlias(cmd.Flags(), "boots", "repetitions")
	addExecutorFlags(cmd, false)
	addSourceFlags(cmd)
	jsonFlag(cmd)
	return cmd
}

// sensitivity lists the metrics whose change a diff did not call, with the
// smallest change the latest noise run of the experiment says these
// sample sizes could see: "below what this setup can see".
func sensitivity(ctx context.Context, store results.Store, experiment string, d *compare.Diff) []string {
	runs, err := store.FindRuns(ctx, results.Filter{Experiment: catalog.NoisePrefix + experiment, Status: results.RunComplete, Limit: 1})
	if err != nil || len(runs) == 0 {
		return nil
	}
	rs, err := store.Results(ctx, runs[0].ID)
	if err != nil {
		return nil
	}
	cv := map[string]float64{}
	for _, m := range noise.Analyze(rs) {
		cv[m.Name] = m.CV
	}
	var out []string
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			c, ok := cv[m.Name]
			if !ok || m.Verdict != verdict.NoChange || math.IsNaN(c) {
				continue
			}
			// The same simulation as noise's MDE, at this diff's n and
			// inside its family, with the noise run's spread.
			mde := compare.MDE(compare.PowerSpec{N1: m.Base.N, N2: m.Cand.N, Sigma: math.Sqrt(math.Log1p(c * c)), Log: true, Family: m.Family, Alpha: m.Alpha, Seed: 1})
			if math.Abs(m.DeltaPct) < mde {
				out = append(out, fmt.Sprintf("%s %s: %s is below what this setup can see at n=%d+%d in a family of %d (%.0f%%, noise run %d)", v.Name, m.Name, num.Delta(m.DeltaPct), m.Base.N, m.Cand.N, m.Family, mde, runs[0].ID))
			}
		}
	}
	return out
}
