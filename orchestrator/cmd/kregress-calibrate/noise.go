package main

// One noise model for every row: how a simulated variant's boots are
// drawn. Parametric (log-normal, optionally quantised to integers so that
// ranks tie, with a share of outlier boots) or resampled from real boots
// of this machine (testdata/realboots.csv), whole boots at a time so that
// the metrics of one boot keep the correlation they had.

import (
	"math"
	"math/rand/v2"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// outlierFactor is what an outlier boot does to every figure: a cell
// the host starved reads several times the others (docs/design-notes.md
// has what TCG boots showed).
const outlierFactor = 3

// noiseModel draws one variant's boots.
type noiseModel struct {
	Name string
	// Sigma: each figure is Center x exp(Sigma x N(0,1)), independently
	// for each metric of each boot; Center 0 means 1000.
	Sigma, Center float64
	// Ties: figures are rounded to integers, so that ranks tie.
	Ties bool
	// Higher: every metric is higher-is-better, and a change of scale s
	// divides its figures by s (s times worse, as for the others).
	Higher bool
	// Outliers is the share of boots whose every figure is outlierFactor
	// times its draw.
	Outliers float64
	// FlagFirst orders the draws: every boot draws its outlier flag, then
	// its figures (the flag is drawn even at Outliers 0). Without it every
	// figure of every boot is drawn first, then the flags of the boots
	// (only when Outliers > 0). The order is part of what a seed
	// reproduces, so each row keeps the order its table was made with.
	FlagFirst bool
	// Real, when set, replaces the parametric draw: boots are resampled
	// (with replacement, whole boots) from this cell of real boots.
	Real *realCell
}

// lognormal is the log-normal model with coefficient of variation cv
// around 1000, its sigma computed as every row has computed it.
func lognormal(name string, cv float64) noiseModel {
	return noiseModel{Name: name, Sigma: math.Sqrt(math.Log1p(cv * cv))}
}

// resampled is the model that draws boots from cell.
func resampled(cell *realCell) noiseModel {
	return noiseModel{Name: "real boots resampled (" + cell.Experiment + "/" + cell.Variant + ", " + cell.mapping() + ")", Real: cell}
}

// figure is one parametric figure, times scale (before rounding, so a
// quantised metric stays quantised after a change).
func (nm noiseModel) figure(rng *rand.Rand, outlier bool, scale float64) float64 {
	c := nm.Center
	if c == 0 {
		c = 1000
	}
	x := c * math.Exp(nm.Sigma*rng.NormFloat64())
	switch {
	case scale == 1:
	case nm.Higher:
		x /= scale
	default:
		x *= scale
	}
	if nm.Ties {
		x = math.Round(x)
	}
	if outlier {
		x *= outlierFactor
	}
	return x
}

// value is one boot's figure of a single metric (the change-point rows'
// nights): its outlier flag, then its figure.
func (nm noiseModel) value(rng *rand.Rand) float64 {
	if nm.Real != nil {
		return nm.Real.Boots[rng.IntN(len(nm.Real.Boots))][0]
	}
	return nm.figure(rng, rng.Float64() < nm.Outliers, 1)
}

// cells is n ok cells of variant with one figure for each of names; a
// metric named in scale is that many times worse than its draw (a
// change).
func (nm noiseModel) cells(rng *rand.Rand, variant string, n int, names []string, scale map[string]float64) []*results.Result {
	dir := agentproto.LowerIsBetter
	if nm.Higher {
		dir = agentproto.HigherIsBetter
	}
	rs := make([]*results.Result, 0, n)
	for i := 0; i < n; i++ {
		r := &results.Result{Variant: variant, Repetition: i + 1, Status: results.StatusOK}
		var boot []float64
		outlier := false
		switch {
		case nm.Real != nil:
			boot = nm.Real.Boots[rng.IntN(len(nm.Real.Boots))]
			if len(names) > len(boot) {
				must(errNames(nm.Real, len(names)))
			}
		case nm.FlagFirst:
			outlier = rng.Float64() < nm.Outliers
		}
		for k, name := range names {
			s, ok := scale[name]
			if !ok {
				s = 1
			}
			var x float64
			if boot != nil {
				x = boot[k] * s
			} else {
				x = nm.figure(rng, outlier, s)
			}
			r.Metrics = append(r.Metrics, agentproto.Metric{Name: name, Unit: "us", Direction: dir, Value: x})
		}
		rs = append(rs, r)
	}
	if nm.Real == nil && !nm.FlagFirst && nm.Outliers > 0 {
		for _, r := range rs {
			if rng.Float64() < nm.Outliers {
				for i := range r.Metrics {
					r.Metrics[i].Value *= outlierFactor
				}
			}
		}
	}
	return rs
}

// cells simulates n ok cells of one variant: every metric log-normal
// around 1000 with coefficient of variation cv, times scale[metric] when
// given.
func cells(rng *rand.Rand, variant string, n int, names []string, cv float64, scale map[string]float64) []*results.Result {
	return lognormal("", cv).cells(rng, variant, n, names, scale)
}
