package main

// The real boots the resampled noise model draws from: every metric of
// every ok cell of built-in experiments as one host measured them
// (testdata/realboots.csv, its provenance in its header), outliers and
// ties as they came.

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/workload"
)

//go:embed testdata/realboots.csv
var realBootsCSV string

// realColumns is the data set's header row.
var realColumns = []string{"experiment", "variant", "boot", "metric", "unit", "direction", "value"}

// maxRealRows bounds what the parser accepts: the data set is small by
// design, and a runaway file should fail loudly.
const maxRealRows = 200000

// realCell is the ok boots of one variant of one experiment: Metrics are
// its judged metrics (no informational ones), the workload's primary
// first, then in the data set's order; Boots[i][k] is boot i's figure of
// Metrics[k]. Only metrics every boot has are kept.
type realCell struct {
	Experiment, Variant string
	Metrics             []string
	// Units and Dirs are each metric's unit and direction, as measured.
	Units []string
	Dirs  []agentproto.Direction
	Boots [][]float64
}

// mapping names the real metrics the rows' first simulated metrics stand
// for: the primary, and the secondary the miss rows change (m3).
func (c *realCell) mapping() string {
	s := "primary = " + c.Metrics[0]
	if len(c.Metrics) > 3 {
		s += ", m3 = " + c.Metrics[3]
	}
	return s
}

func errNames(c *realCell, want int) error {
	return fmt.Errorf("real cell %s/%s has %d judged metrics, a row asks for %d", c.Experiment, c.Variant, len(c.Metrics), want)
}

// parseRealBoots reads the data set: comment lines (#) first, then the
// header row realColumns, then one row per figure. It returns the cells
// in the order they first appear.
func parseRealBoots(text string) ([]*realCell, error) {
	var body strings.Builder
	for line := range strings.Lines(text) {
		if !strings.HasPrefix(line, "#") {
			body.WriteString(line)
		}
	}
	r := csv.NewReader(strings.NewReader(body.String()))
	r.FieldsPerRecord = len(realColumns)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("real boots: header: %w", err)
	}
	if !slices.Equal(head, realColumns) {
		return nil, fmt.Errorf("real boots: header %q, want %q", head, realColumns)
	}
	type key struct{ exp, variant string }
	type figures struct {
		metrics []string // in first-seen order
		dir     map[string]agentproto.Direction
		unit    map[string]string
		boots   map[int]map[string]float64
		order   []int
	}
	var keys []key
	by := map[key]*figures{}
	for row := 1; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("real boots: %w", err)
		}
		if row > maxRealRows {
			return nil, fmt.Errorf("real boots: more than %d rows", maxRealRows)
		}
		boot, err := strconv.Atoi(rec[2])
		if err != nil || boot < 1 {
			return nil, fmt.Errorf("real boots: row %d: boot %q is not a positive integer", row, rec[2])
		}
		v, err := strconv.ParseFloat(rec[6], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("real boots: row %d: value %q is not a finite number", row, rec[6])
		}
		dir := agentproto.Direction(rec[5])
		switch dir {
		case agentproto.LowerIsBetter, agentproto.HigherIsBetter, agentproto.Informational:
		default:
			return nil, fmt.Errorf("real boots: row %d: direction %q", row, rec[5])
		}
		k := key{rec[0], rec[1]}
		f := by[k]
		if f == nil {
			f = &figures{dir: map[string]agentproto.Direction{}, unit: map[string]string{}, boots: map[int]map[string]float64{}}
			by[k] = f
			keys = append(keys, k)
		}
		if _, ok := f.dir[rec[3]]; !ok {
			f.metrics = append(f.metrics, rec[3])
			f.dir[rec[3]] = dir
			f.unit[rec[3]] = rec[4]
		}
		b := f.boots[boot]
		if b == nil {
			b = map[string]float64{}
			f.boots[boot] = b
			f.order = append(f.order, boot)
		}
		if _, dup := b[rec[3]]; dup {
			return nil, fmt.Errorf("real boots: row %d: %s/%s boot %d has %s twice", row, rec[0], rec[1], boot, rec[3])
		}
		b[rec[3]] = v
	}
	var out []*realCell
	for _, k := range keys {
		f := by[k]
		c := &realCell{Experiment: k.exp, Variant: k.variant}
		var judged []string
		for _, m := range f.metrics {
			if f.dir[m] == agentproto.Informational {
				continue
			}
			every := true
			for _, b := range f.boots {
				_, ok := b[m]
				every = every && ok
			}
			if every {
				judged = append(judged, m)
			}
		}
		// The workload's primary metric first: the rows judge their
		// first metric as the primary one.
		slices.SortStableFunc(judged, func(a, b string) int {
			pa, pb := slices.Contains(workload.AnyPrimary(), a), slices.Contains(workload.AnyPrimary(), b)
			switch {
			case pa && !pb:
				return -1
			case pb && !pa:
				return 1
			}
			return 0
		})
		c.Metrics = judged
		for _, m := range judged {
			c.Units = append(c.Units, f.unit[m])
			c.Dirs = append(c.Dirs, f.dir[m])
		}
		slices.Sort(f.order)
		for _, i := range f.order {
			boot := make([]float64, len(judged))
			for j, m := range judged {
				boot[j] = f.boots[i][m]
			}
			c.Boots = append(c.Boots, boot)
		}
		if len(c.Metrics) == 0 || len(c.Boots) < 2 {
			return nil, fmt.Errorf("real boots: %s/%s: %d judged metrics in %d boots: nothing to resample", k.exp, k.variant, len(c.Metrics), len(c.Boots))
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("real boots: no cell")
	}
	return out, nil
}

// realCells are the data set's cells, parsed once.
var realCells = func() []*realCell {
	cs, err := parseRealBoots(realBootsCSV)
	must(err)
	return cs
}()

// realCellOf is the cell of experiment's variant; it panics when the data
// set has none, since the rows that name it cannot run.
func realCellOf(experiment, variant string) *realCell {
	for _, c := range realCells {
		if c.Experiment == experiment && c.Variant == variant {
			return c
		}
	}
	must(fmt.Errorf("real boots: no cell %s/%s", experiment, variant))
	return nil
}

// metrics is one boot resampled whole from c, every judged metric with
// its real name, unit and direction; a metric named in scale is that many
// times worse (divided when higher is better), so a row's change is
// applied as it would show.
func (c *realCell) metrics(rng *rand.Rand, scale map[string]float64) []agentproto.Metric {
	boot := c.Boots[rng.IntN(len(c.Boots))]
	ms := make([]agentproto.Metric, len(c.Metrics))
	for k, name := range c.Metrics {
		x := boot[k]
		if s, ok := scale[name]; ok {
			if c.Dirs[k] == agentproto.HigherIsBetter {
				x /= s
			} else {
				x *= s
			}
		}
		ms[k] = agentproto.Metric{Name: name, Unit: c.Units[k], Direction: c.Dirs[k], Value: x}
	}
	return ms
}

// The cell the resampled rows draw from: the default experiment's
// baseline.
const realExperiment, realBaseline = "rstat-relock", "stock"
