package format

import (
	"fmt"
	"io"

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
	return writeIndented(w, r)
}
