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
	senstable "github.com/kregress/kregress/results/sensitivity"
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
	// NotRunnable is why the experiment refuses the command's flags
	// (empty when it takes them).
	NotRunnable string   `json:"not_runnable,omitempty"`
	Primary     []string `json:"primary_metrics"`
	// Accel is the accelerator its guests would run under here.
	Accel senstable.Accel `json:"accel"`
	// Sees is the smallest change of each primary metric its
	// repetitions would find (power 0.8, alpha 0.05 over its family),
	// from the spread between boots measured for it: the latest noise run
	// of this experiment in the store when there is one, else the rows of
	// the measured table (docs/sensitivity.md) for this accelerator, clock,
	// vCPU count and workload duration; empty when neither has it.
	Sees []sensitivityLine `json:"sees,omitempty"`
	// From says where Sees's spreads come from ("" when Sees is empty).
	From string `json:"from,omitempty"`
	// NoiseRun is the noise run Sees comes from (0: none in the store).
	NoiseRun int64 `json:"noise_run,omitempty"`
}

type sensitivityLine struct {
	Metric string `json:"metric"`
	// MDEPct is nil when no change can be found at these boots, or when
	// the metric's spread was not measured (CV 0).
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
			accel, why := hostAccel(cfg.VM.Accel)
			table := senstable.Table()
			var infos []experimentInfo
			for _, name := range config.Experiments() {
				info, err := describeExperiment(name, cmd, store, accel, table)
				switch {
				case err != nil && cmd.Flags().NFlag() > 0:
					// The flags apply to every built-in, and some refuse
					// them (the icount experiments refuse --vm.accel kvm):
					// that built-in is listed as not runnable so, not the
					// whole listing lost.
					info = experimentInfo{Name: name, NotRunnable: err.Error()}
				case err != nil:
					return fmt.Errorf("built-in experiment %s: %w", name, err)
				}
				infos = append(infos, info)
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

// hostAccel is the accelerator guests would run under here with vm.accel
// set to want, and a line saying why. For auto it does not boot the probe
// guest a run boots: without a reason against KVM it assumes KVM, and
// says so.
func hostAccel(want string) (senstable.Accel, string) {
	switch want {
	case "tcg":
		return senstable.TCG, "guests run under TCG here: vm.accel is tcg"
	case "kvm":
		if why := kvmUnusable(); why != "" {
			// The listing still answers "what would KVM see", but a run
			// with vm.accel kvm here fails: say so first.
			return senstable.KVM, "vm.accel is kvm, but KVM is unusable here (" + why + "): a run would fail; the figures below are for a KVM host"
		}
		return senstable.KVM, "guests run under KVM here: vm.accel is kvm"
	}
	if why := kvmUnusable(); why != "" {
		return senstable.TCG, "guests here run under TCG: " + why
	}
	return senstable.KVM, "guests here would run under KVM (vm.accel auto boots a probe guest to confirm; if it fails, TCG, where these figures do not hold)"
}

func seesText(e experimentInfo) string {
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

// describeExperiment resolves a built-in experiment (with the command's
// flags, so --repetitions changes what it can see) and what its boots
// can see under accel: from the store's latest noise run of it, else
// from the measured table's rows for its setup.
func describeExperiment(name string, cmd *cobra.Command, store results.Store, accel senstable.Accel, table []senstable.Row) (experimentInfo, error) {
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
		Workload: cfg.Workload.Name, Clock: cmp.Or(cfg.VM.Clock, "host"), Repetitions: cfg.Repetitions, Primary: cfg.JudgedPrimary(),
		Accel: accel}
	for _, v := range sel.Variants {
		info.Variants = append(info.Variants, v.Name)
	}
	if len(info.Primary) == 0 {
		return info, nil
	}
	family := len(info.Primary) * max(len(sel.Variants)-1, 1)
	if cv, run := noiseRunCV(cmd, store, name); len(cv) > 0 {
		if info.Sees = seesFrom(cv, info.Primary, cfg.Repetitions, family); len(info.Sees) > 0 {
			info.NoiseRun, info.From = run, fmt.Sprintf("noise run %d", run)
			return info, nil
		}
	}
	rows := senstable.Lookup(table, senstable.Setup{Experiment: name, Accel: accel, Clock: senstable.Clock(info.Clock),
		CPUs: cfg.VM.CPUs, Duration: cfg.Workload.Duration.D()})
	if len(rows) == 0 {
		return info, nil
	}
	cv := map[string]float64{}
	for _, r := range rows {
		cv[r.Metric] = r.CV
	}
	info.Sees = seesFrom(cv, info.Primary, cfg.Repetitions, family)
	info.From = fmt.Sprintf("docs/sensitivity.md, measured %s", rows[0].Date)
	return info, nil
}

// noiseRunCV is each metric's spread between boots in the store's latest
// complete noise run of the experiment, and that run's id; none without
// a store or a run.
func noiseRunCV(cmd *cobra.Command, store results.Store, name string) (map[string]float64, int64) {
	if store == nil {
		return nil, 0
	}
	runs, err := store.FindRuns(cmd.Context(), results.Filter{Experiment: noisePrefix + name, Status: results.RunComplete, Limit: 1})
	if err != nil || len(runs) == 0 {
		return nil, 0
	}
	rs, err := store.Results(cmd.Context(), runs[0].ID)
	if err != nil {
		return nil, 0
	}
	cv := map[string]float64{}
	for _, m := range noise.Analyze(rs) {
		if !math.IsNaN(m.CV) {
			cv[m.Name] = m.CV
		}
	}
	return cv, runs[0].ID
}

// seesFrom turns each primary metric's spread into the smallest change
// reps boots per variant find among family tests (the same simulation as
// noise's and diff's power lines). A primary metric without a spread is
// listed as not measured (CV 0); none at all gives nothing.
func seesFrom(cv map[string]float64, primary []string, reps, family int) []sensitivityLine {
	var lines []sensitivityLine
	found := false
	for _, m := range primary {
		c, ok := cv[m]
		if !ok {
			lines = append(lines, sensitivityLine{Metric: m})
			continue
		}
		found = true
		mde := compare.MDE(compare.PowerSpec{N1: reps, N2: reps, Sigma: math.Sqrt(math.Log1p(c * c)), Log: true, Family: family, Alpha: 0.05, Seed: 1})
		line := sensitivityLine{Metric: m, CV: c}
		if !math.IsInf(mde, 1) {
			line.MDEPct = &mde
		}
		lines = append(lines, line)
	}
	if !found {
		return nil
	}
	return lines
}
