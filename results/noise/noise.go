// Package noise measures the instrument: from many boots of one kernel,
// per metric, how much boots differ from each other, how much a boot's
// sampling windows differ within it, how much of it follows host load,
// and so the smallest change a comparison of n boots per side can see.
package noise

import (
	"encoding/json"
	"math"
	"sort"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

// Sizes are the boots per side the minimum detectable effect is given for.
var Sizes = []int{5, 8, 16}

// Metric is one metric's noise.
type Metric struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Boots int     `json:"boots"`
	Mean  float64 `json:"mean"`
	// CV is the coefficient of variation between boots.
	CV float64 `json:"cv"`
	// WithinCV: for metrics with per-window values (the irqs-off
	// windows, the windowed throughputs), the mean coefficient of
	// variation of windows within a boot; NaN when the metric has none.
	WithinCV float64 `json:"within_cv"`
	// LoadR is the Spearman correlation of the per-boot value with the
	// host's load average when the boot started (NaN when not recorded).
	LoadR float64 `json:"load_r"`
	// MDEPct: the smallest change (in % of the mean) the diff's test
	// finds in a primary metric with power 0.8 at Sizes[i] boots per
	// side (MDE).
	MDEPct []float64 `json:"mde_pct"`
}

// MDE is the minimum detectable effect, in percent, for a coefficient of
// variation cv between boots and n boots per side: the smallest change
// of a primary metric that the diff's own test finds with power 0.8, by
// simulation of that exact test (two-sided Mann-Whitney U) on log-normal
// boots (compare.MDE, the code behind every diff's power line). The
// built-in workloads each have a primary metric judged beside secondary
// ones, and a diff then judges the primary at alpha's primary share
// (compare.PrimaryShare of 0.05), not at 0.05: the figure is for that
// level, which a metric judged alone meets with a little more power. It
// is simulated because the asymptotic z formula overstates the power at
// these sample sizes (docs/design-notes.md). Below n = 4 per side no p
// small enough exists at all (+Inf).
func MDE(cv float64, n int) float64 {
	if math.IsNaN(cv) || cv < 0 {
		return math.NaN()
	}
	return compare.MDE(compare.PowerSpec{N1: n, N2: n, Sigma: math.Sqrt(math.Log1p(cv * cv)), Log: true, Family: 1, Alpha: PrimaryAlpha, Seed: 1})
}

// PrimaryAlpha is the level a diff judges a primary metric at when
// secondary metrics are judged beside it: MDE's level.
const PrimaryAlpha = 0.05 * compare.PrimaryShare

// Analyze computes every judged metric's noise from rs (ok cells only).
func Analyze(rs []*results.Result) []Metric {
	values := map[string][]float64{}
	loads := map[string][]float64{}
	meta := map[string]agentproto.Metric{}
	var order []string
	within := map[string][]float64{} // per metric, per boot: CV of its windows
	for _, r := range rs {
		if !r.Status.OK() {
			continue
		}
		for _, m := range r.Metrics {
			if m.Direction == agentproto.Informational {
				continue
			}
			if _, ok := meta[m.Name]; !ok {
				meta[m.Name] = m
				order = append(order, m.Name)
			}
			values[m.Name] = append(values[m.Name], m.Value)
			loads[m.Name] = append(loads[m.Name], r.Provenance.HostLoad1)
		}
		var doc agentproto.Document
		if json.Unmarshal(r.Document, &doc) == nil && doc.Irqsoff != nil {
			var ws []float64
			for _, w := range doc.Irqsoff.Windows {
				ws = append(ws, float64(w.LatencyUS))
			}
			if len(ws) > 1 {
				m, sd := meanSD(ws)
				within["irqsoff_window_p50_us"] = append(within["irqsoff_window_p50_us"], sd/m)
			}
		}
		for name, ws := range doc.WindowRates {
			if len(ws) > 2 { // the first window is the warm-up the metric leaves out
				m, sd := meanSD(ws[1:])
				if m != 0 {
					within[name] = append(within[name], sd/math.Abs(m))
				}
			}
		}
	}
	var out []Metric
	for _, name := range order {
		v := values[name]
		m, sd := meanSD(v)
		nm := Metric{Name: name, Unit: meta[name].Unit, Boots: len(v), Mean: m, CV: math.NaN(), WithinCV: math.NaN(), LoadR: spearman(v, loads[name])}
		if m != 0 && len(v) > 1 {
			nm.CV = sd / math.Abs(m)
		}
		if w := within[name]; len(w) > 0 {
			nm.WithinCV, _ = meanSD(w)
		}
		for _, n := range Sizes {
			nm.MDEPct = append(nm.MDEPct, MDE(nm.CV, n))
		}
		out = append(out, nm)
	}
	return out
}

func meanSD(v []float64) (float64, float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	if len(v) < 2 {
		return m, math.NaN()
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(v)-1))
}

// spearman is the rank correlation of x and y; NaN when y is constant
// (no load recorded) or too short.
func spearman(x, y []float64) float64 {
	if len(x) < 3 || len(x) != len(y) {
		return math.NaN()
	}
	rx, ry := ranks(x), ranks(y)
	mx, sx := meanSD(rx)
	my, sy := meanSD(ry)
	if sx == 0 || sy == 0 || math.IsNaN(sx) || math.IsNaN(sy) {
		return math.NaN()
	}
	c := 0.0
	for i := range rx {
		c += (rx[i] - mx) * (ry[i] - my)
	}
	return c / float64(len(rx)-1) / (sx * sy)
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}
