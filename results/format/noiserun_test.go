package format_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/noise"
)

// noise's text output: the run it measured above its table.
func TestWriteNoiseRun(t *testing.T) {
	ms := []noise.Metric{{Name: "reads_per_sec", Unit: "reads/s", Boots: 8, Mean: 2400, CV: 0.05, WithinCV: math.NaN(), LoadR: math.NaN(), MDEPct: []float64{math.Inf(1), 12, 7}}}
	var table, run bytes.Buffer
	format.WriteNoise(&table, ms)
	format.WriteNoiseRun(&run, format.NoiseRun{ID: 4, Experiment: "noise:x", Variant: "stock", Cells: 8}, ms)
	if want := "\nrun 4: noise:x, 8 boots of stock\n\n" + table.String(); run.String() != want {
		t.Errorf("WriteNoiseRun:\n%s\nwant:\n%s", run.String(), want)
	}
}
