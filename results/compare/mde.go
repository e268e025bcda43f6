package compare

import (
	"fmt"
	"math"
)

// DetectablePct is the smallest relative change (percent) m's comparison
// would have found with 80% power at its sample sizes, spread and family
// - what a "could see" line states for an unchanged metric - computed for
// any verdict: a regression's report states it beside p, q and n, so a
// reader knows how small a change the same test could have caught. +Inf
// when no change could be found.
func DetectablePct(m *Metric) float64 { return couldSee(m) }

// Change is a metric's change as a report states it: medians, relative
// change, p, q, n and the smallest change the test could see. It is
// stored (nightly JSON, a bisect handed a nightly regression), so its
// figures are finite: MDEPct is -1 when no change could be seen.
type Change struct {
	Name     string  `json:"name"`
	Unit     string  `json:"unit,omitempty"`
	Base     float64 `json:"base_median"`
	Cand     float64 `json:"cand_median"`
	DeltaPct float64 `json:"delta_pct"`
	P        float64 `json:"p"`
	Q        float64 `json:"q"`
	N1       int     `json:"n_base"`
	N2       int     `json:"n_cand"`
	MDEPct   float64 `json:"mde_pct"`
}

// ChangeOf summarises m.
func ChangeOf(m *Metric) *Change {
	finite := func(v, or float64) float64 {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return or
		}
		return v
	}
	return &Change{Name: m.Name, Unit: m.Unit, Base: finite(m.Base.Median, 0), Cand: finite(m.Cand.Median, 0), DeltaPct: finite(m.DeltaPct, 0),
		P: m.P, Q: m.Q, N1: m.Base.N, N2: m.Cand.N, MDEPct: finite(DetectablePct(m), -1)}
}

// String states the change in one line.
func (c *Change) String() string {
	mde := "none reachable"
	if c.MDEPct >= 0 {
		mde = fmt.Sprintf("%.1f%%", c.MDEPct)
	}
	unit := ""
	if c.Unit != "" {
		unit = " " + c.Unit
	}
	return fmt.Sprintf("%s %.4g -> %.4g%s (%+.1f%%; p=%.3g, q=%.3g, n=%d+%d; smallest change this test sees with 80%% power: %s)",
		c.Name, c.Base, c.Cand, unit, c.DeltaPct, c.P, c.Q, c.N1, c.N2, mde)
}
