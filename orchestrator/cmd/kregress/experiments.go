package main

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/noise"
)

// experimentInfo is one built-in experiment as `kregress experiments`
// shows it.
type experimentInfo struct {
	Name        string   `json:"name"`
	Summary     string   `json:"summary"`
	Description string   `json:"description"`
	Family      string   `json:"family"`
	Variants    []string `json:"variants"`
	Workload    string   `json:"workload"`
	Clock       string   `json:"clock"`
	Repetitions int      `json:"repetitions"`
	Primary     []string `json:"primary_metrics"`
	// Sees is the smallest change of each primary metric its
	// repetitions would find (power 0.8, alpha 0.05 over its family),
	// from the spread of the latest noise run of this experiment in the
	// store; empty when it has none.
	Sees []sensitivityLine `json:"sees,omitempty"`
	// NoiseRun is that run (0: none in the store).
	NoiseRun int64 `json:"noise_run,omitempty"`
}

type sensitivityLine struct {
	Metric string `json:"metric"`
	// MDEPct is nil when no change can be found at these boots.
	MDEPct *float64 `json:"mde_pct"`
	CV     float64  `json:"cv"`
}

func newExperiments() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "experiments",
		Short: "list the built-in experiments (-c NAME): what each measures, and the smallest change it can see on this host",
		Long: `experiments lists the experiments built into kregress, the names -c accepts.
For each: its family and variants, workload, guest clock (host or icount),
boots per variant, the primary metrics it judges, and what it can see on
this host: the smallest change of each primary metric that its boots per
variant would find (power 0.8, alpha 0.05 split over its candidates and
primary metrics), computed from the spread between boots of the latest
"kregress noise -c NAME" run in the store. Without such a run it says so:
the spread depends on the host, the accelerator and its load, so no figure
is made up. The header says whether guests here run under KVM or TCG, and
why.`,
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
			var infos []experimentInfo
			for _, name := range config.Experiments() {
				info, err := describeExperiment(name, cmd, store)
				if err != nil {
					return fmt.Errorf("built-in experiment %s: %w", name, err)
				}
				infos = append(infos, info)
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), infos)
			}
			w := cmd.OutOrStdout()
			accel := "KVM may be usable here (vm.accel auto boots a probe guest to confirm)"
			if why := vm.KVMUnusable(); why != "" {
				accel = "guests here run under TCG: " + why
			}
			fmt.Fprintf(w, "%s\n\n", accel)
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

func seesText(e experimentInfo) string {
	if len(e.Sees) == 0 {
		if len(e.Primary) == 0 {
			return "gate only: no metric judged"
		}
		return "not measured here (kregress noise -c " + e.Name + ")"
	}
	var parts []string
	for _, s := range e.Sees {
		if s.MDEPct == nil {
			parts = append(parts, s.Metric+": nothing at these boots")
			continue
		}
		parts = append(parts, fmt.Sprintf(">=%.0f%% %s", *s.MDEPct, s.Metric))
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (noise run %d)", e.NoiseRun)
}

// describeExperiment resolves a built-in experiment (with the command's
// flags, so --repetitions changes what it can see) and, when the store
// has a noise run of it, what its boots can see.
func describeExperiment(name string, cmd *cobra.Command, store results.Store) (experimentInfo, error) {
	cfg, _, err := config.Load(name, cmd.Flags())
	if err != nil {
		return experimentInfo{}, err
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		return experimentInfo{}, err
	}
	desc := config.Describe(name)
	info := experimentInfo{Name: name, Summary: config.Summary(desc, 72), Description: desc, Family: cfg.Family,
		Workload: cfg.Workload.Name, Clock: cmp.Or(cfg.VM.Clock, "host"), Repetitions: cfg.Repetitions, Primary: cfg.JudgedPrimary()}
	for _, v := range sel.Variants {
		info.Variants = append(info.Variants, v.Name)
	}
	if store == nil || len(info.Primary) == 0 {
		return info, nil
	}
	runs, err := store.FindRuns(cmd.Context(), results.Filter{Experiment: noisePrefix + name, Status: results.RunComplete, Limit: 1})
	if err != nil || len(runs) == 0 {
		return info, nil
	}
	rs, err := store.Results(cmd.Context(), runs[0].ID)
	if err != nil {
		return info, nil
	}
	cv := map[string]float64{}
	for _, m := range noise.Analyze(rs) {
		cv[m.Name] = m.CV
	}
	family := len(info.Primary) * max(len(sel.Variants)-1, 1)
	for _, m := range info.Primary {
		c, ok := cv[m]
		if !ok || math.IsNaN(c) {
			continue
		}
		// The same simulation as noise's and diff's sensitivity notes.
		mde := compare.MDE(compare.PowerSpec{N1: cfg.Repetitions, N2: cfg.Repetitions, Sigma: math.Sqrt(math.Log1p(c * c)), Log: true, Family: family, Alpha: 0.05, Seed: 1})
		line := sensitivityLine{Metric: m, CV: c}
		if !math.IsInf(mde, 1) {
			line.MDEPct = &mde
		}
		info.Sees = append(info.Sees, line)
	}
	if len(info.Sees) > 0 {
		info.NoiseRun = runs[0].ID
	}
	return info, nil
}
