// Package catalog describes the experiments built into kregress (the
// names -c accepts) and what each can see on this host: the smallest
// change of each primary metric its boots would find, from the spread
// between boots measured for it. It is what `kregress experiments` lists.
package catalog

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/spf13/pflag"

	"github.com/kregress/kregress/guest/metrics"
	wl "github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/noise"
	senstable "github.com/kregress/kregress/results/sensitivity"
	"github.com/kregress/kregress/results/store"
)

// NoisePrefix names the runs of `kregress noise` (noise.ExperimentPrefix).
const NoisePrefix = noise.ExperimentPrefix

// Info is one built-in experiment as `kregress experiments` shows it.
type Info struct {
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
	Sees []SensitivityLine `json:"sees,omitempty"`
	// From says where Sees's spreads come from ("" when Sees is empty).
	From string `json:"from,omitempty"`
	// NoiseRun is the noise run Sees comes from (0: none in the store).
	NoiseRun int64 `json:"noise_run,omitempty"`
	// File is the experiment file it comes from, what -c takes for it
	// ("" for a built-in: its Name).
	File string `json:"file,omitempty"`
}

// SensitivityLine is what an experiment can see of one primary metric.
type SensitivityLine struct {
	Metric string `json:"metric"`
	// MDEPct is nil when no change can be found at these boots, or when
	// the metric's spread was not measured (CV 0).
	MDEPct *float64 `json:"mde_pct"`
	CV     float64  `json:"cv"`
}

// List describes every built-in experiment with flags applied (so
// --repetitions changes what it can see), under accel, its spreads read
// from store (nil: none), then the experiment of file (-c FILE) when it
// is not a built-in's name. The flags apply to every built-in, and some
// refuse them (the icount experiments refuse --vm.accel kvm): with flags
// set, such a built-in is listed as not runnable with them, not the
// whole listing lost.
func List(ctx context.Context, flags *pflag.FlagSet, store results.Store, accel senstable.Accel, file string) ([]Info, error) {
	table := senstable.Table()
	var infos []Info
	for _, name := range config.Experiments() {
		info, err := Describe(ctx, name, flags, store, accel, table)
		switch {
		case err != nil && flags != nil && flags.NFlag() > 0:
			info = Info{Name: name, NotRunnable: err.Error()}
		case err != nil:
			return nil, fmt.Errorf("built-in experiment %s: %w", name, err)
		}
		infos = append(infos, info)
	}
	if file == "" || slices.Contains(config.Experiments(), file) {
		return infos, nil
	}
	cfg, _, err := config.Load(file, flags)
	if err != nil {
		return nil, err
	}
	info, err := describe(ctx, cfg, cfg.Experiment, "the experiment of "+file, store, accel, table)
	info.File = file
	return append(infos, info), err
}

// Request is what `kregress experiments` lists: the experiments as the
// command's Flags change them (List), File being -c's (its experiment is
// listed after the built-ins), for this host: KVMUnusable says why guests
// here cannot use KVM ("" if they may; vm.KVMUnusable).
type Request struct {
	Flags       *pflag.FlagSet
	File        string
	KVMUnusable func() string
}

// ListHere is `kregress experiments`: every experiment r asks for (List)
// under the accelerator guests here would run under with the command's
// configuration (File and Flags: its vm.accel, HostAccel), with the
// spreads measured in its store when there is one (none is no measured
// spread, not an error), and HostAccel's line saying why that
// accelerator. A configuration that does not load is a usage error.
func ListHere(ctx context.Context, r Request) (infos []Info, why string, err error) {
	cfg, _, err := config.Load(r.File, r.Flags)
	if err != nil {
		return nil, "", usage.Wrap(err)
	}
	var measured results.Store
	if s, err := store.OpenFor(ctx, cfg.StoreSpec(), store.ReadOnly, nil); err == nil {
		measured = s
		defer s.Close()
	}
	accel, why := HostAccel(cfg.VM.Accel, r.KVMUnusable)
	infos, err = List(ctx, r.Flags, measured, accel, r.File)
	return infos, why, err
}

// HostAccel is the accelerator guests would run under here with vm.accel
// set to want, and a line saying why; kvmUnusable says why KVM cannot be
// used here ("" if it can). For auto it does not boot the probe guest a
// run boots: without a reason against KVM it assumes KVM, and says so.
func HostAccel(want string, kvmUnusable func() string) (senstable.Accel, string) {
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

// Describe resolves built-in experiment name (with flags) and what its
// boots can see under accel: from the store's latest noise run of it,
// else from the measured table's rows for its setup.
func Describe(ctx context.Context, name string, flags *pflag.FlagSet, store results.Store, accel senstable.Accel, table []senstable.Row) (Info, error) {
	cfg, _, err := config.Load(name, flags)
	if err != nil {
		return Info{}, err
	}
	return describe(ctx, cfg, name, config.Describe(name), store, accel, table)
}

// clockUnder is the clock guests of v keep under accel, as the measured
// table names it.
func clockUnder(v config.VM, accel senstable.Accel) string {
	if v.ICountUnder(string(accel)) {
		return string(senstable.IcountClock)
	}
	return string(senstable.HostClock)
}

// describe is Describe of the experiment cfg, named name, desc saying
// what it is.
func describe(ctx context.Context, cfg *config.Config, name, desc string, store results.Store, accel senstable.Accel, table []senstable.Row) (Info, error) {
	sel, err := variants.Resolve(cfg)
	if err != nil {
		return Info{}, err
	}
	info := Info{Name: name, Summary: config.Summary(desc, 72), Description: desc, Family: cfg.Family,
		Workload: cfg.Workload.Name, Clock: clockUnder(cfg.VM, accel), Repetitions: cfg.Repetitions, Primary: cfg.JudgedPrimary(),
		Accel: accel}
	for _, v := range sel.Variants {
		info.Variants = append(info.Variants, v.Name)
	}
	if len(info.Primary) == 0 {
		return info, nil
	}
	family := len(info.Primary) * max(len(sel.Variants)-1, 1)
	if cv, run := noise.LatestCV(ctx, store, name); len(cv) > 0 {
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

// seesFrom turns each primary metric's spread into the smallest change
// reps boots per variant find among family tests (the same simulation as
// noise's and diff's power lines). A primary metric without a spread is
// listed as not measured (CV 0); none at all gives nothing.
func seesFrom(cv map[string]float64, primary []string, reps, family int) []SensitivityLine {
	var lines []SensitivityLine
	found := false
	for _, m := range primary {
		c, ok := cv[m]
		if !ok {
			lines = append(lines, SensitivityLine{Metric: m})
			continue
		}
		found = true
		mde := compare.MDE(compare.PowerSpec{N1: reps, N2: reps, Sigma: math.Sqrt(math.Log1p(c * c)), Log: true, Family: family, Alpha: 0.05, Seed: 1})
		line := SensitivityLine{Metric: m, CV: c}
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

// MetricRow is one metric of one workload, as `kregress metrics` lists
// it: the guest's spec, whether it is judged, and whether it is primary.
type MetricRow struct {
	Workload string `json:"workload"`
	metrics.Spec
	Judged  bool `json:"judged"`
	Primary bool `json:"primary"`
}

// Metrics lists each workload's metrics in the guest agent's order,
// marking those primary(workload) names.
func Metrics(workloads []string, primary func(workload string) []string) []MetricRow {
	var rows []MetricRow
	for _, w := range workloads {
		for _, s := range wl.Metrics(w) {
			rows = append(rows, MetricRow{Workload: w, Spec: s, Judged: s.Judged(), Primary: slices.Contains(primary(w), s.Name)})
		}
	}
	return rows
}
