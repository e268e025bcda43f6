package format

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/kregress/kregress/results/noise"
)

// noiseReport is noise's --json: the run and each metric's spread, with
// null for what was not measured (no windows, no load) or cannot be
// seen at that n.
type noiseReport struct {
	Run        int64         `json:"run"`
	Experiment string        `json:"experiment"`
	Variant    string        `json:"variant"`
	Cells      int           `json:"cells"`
	Metrics    []noiseMetric `json:"metrics"`
}

type noiseMetric struct {
	Name     string              `json:"name"`
	Unit     string              `json:"unit"`
	Boots    int                 `json:"boots"`
	Mean     *float64            `json:"mean"`
	CV       *float64            `json:"cv"`
	WithinCV *float64            `json:"within_cv"`
	LoadR    *float64            `json:"load_r"`
	MDEPct   map[string]*float64 `json:"mde_pct"` // by boots per side
}

// NoiseRun is the noise measurement a report describes: its run, the
// experiment and variant booted, and how many cells it stored.
type NoiseRun struct {
	ID         int64
	Experiment string
	Variant    string
	Cells      int
}

// WriteNoiseJSON writes noise --json: the run and each metric's
// spread (results/noise), indented.
func WriteNoiseJSON(w io.Writer, run NoiseRun, ms []noise.Metric) error {
	r := noiseReport{Run: run.ID, Experiment: run.Experiment, Variant: run.Variant, Cells: run.Cells, Metrics: []noiseMetric{}}
	for _, m := range ms {
		nm := noiseMetric{Name: m.Name, Unit: m.Unit, Boots: m.Boots, Mean: finite(m.Mean), CV: finite(m.CV), WithinCV: finite(m.WithinCV), LoadR: finite(m.LoadR), MDEPct: map[string]*float64{}}
		for i, d := range m.MDEPct {
			if i < len(noise.Sizes) {
				nm.MDEPct[fmt.Sprint(noise.Sizes[i])] = finite(d)
			}
		}
		r.Metrics = append(r.Metrics, nm)
	}
	return IndentedJSON(w, r)
}

// WriteNoiseRun prints what noise measured (run, experiment, boots of
// which variant) and its table.
func WriteNoiseRun(w io.Writer, run NoiseRun, ms []noise.Metric) {
	fmt.Fprintf(w, "\nrun %d: %s, %d boots of %s\n\n", run.ID, run.Experiment, run.Cells, run.Variant)
	WriteNoise(w, ms)
}

// WriteNoise prints noise's table: per metric its boots, mean, spreads,
// correlation with host load and the smallest change n boots per side
// can see.
func WriteNoise(w io.Writer, ms []noise.Metric) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "metric\tboots\tmean\tCV between boots\tCV within a boot\tload r\t")
	for _, n := range noise.Sizes {
		fmt.Fprintf(tw, "MDE n=%d\t", n)
	}
	fmt.Fprintln(tw)
	for _, m := range ms {
		fmt.Fprintf(tw, "%s (%s)\t%d\t%.4g\t%s\t%s\t%s\t", m.Name, m.Unit, m.Boots, m.Mean, noiseCV(m.CV), noiseCV(m.WithinCV), noiseCorr(m.LoadR))
		for _, d := range m.MDEPct {
			fmt.Fprintf(tw, "%s\t", noiseMDE(d))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w, "(MDE: the smallest change the diff's Mann-Whitney test at alpha 0.05 finds with power 0.8, n boots per side, one metric judged alone (simulated; a family of k metrics needs more); load r: Spearman correlation with the host's 1-minute load average at each boot)")
}

// noiseCV is a coefficient of variation; "-" when not measured.
func noiseCV(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// noiseMDE is a minimum detectable effect in percent; "-" when none can
// be seen at that n.
func noiseMDE(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", v)
}

// noiseCorr is a correlation; "-" when no load was recorded.
func noiseCorr(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%+.2f", v)
}
