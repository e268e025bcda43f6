package compare

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/kregress/kregress/internal/stats"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// A guest that keeps the host's clock times its code in real time, so a
// vCPU thread the host preempts stretches every section it was in: its
// timings measure the host's load as well as the kernel. Two sides
// measured at unlike loads (a baseline night on a quiet host, tonight
// beside a build) then differ in their timings with no change in the
// kernel. When both sides keep the host clock and their loads differ
// beyond Options.LoadBound, the comparison says so (Diff.LoadMismatch)
// and no timing metric (TimingUnit) is called a regression from it: one
// that would have been is held (Metric.LoadHeld) and makes the verdict
// UNJUDGED. A guest under the icount clock counts instructions, whatever
// the host's load, and is never held.

// DefaultLoadBound is the load ratio (LoadMismatch.Ratio) beyond which two
// host-clock sides are not compared on timing, when none is given. A
// design choice, not yet a calibration: see docs/verdict.md.
const DefaultLoadBound = 1.25

// CheckLoadBound refuses a bound no comparison can use: a ratio above 1,
// or +Inf (never hold).
func CheckLoadBound(flag string, b float64) error {
	if math.IsNaN(b) || b <= 1 {
		return fmt.Errorf("%s %g: want a ratio above 1 (1.25: timings are not compared when one side's host was 1.25 times as contended as the other's; inf: off)", flag, b)
	}
	return nil
}

// SideLoad is how contended the host was while one side's cells ran.
type SideLoad struct {
	// Cells: the side's ok cells whose load was recorded.
	Cells int `json:"cells"`
	// Load1: the median 1-minute load average at the cells' start.
	Load1 float64 `json:"load1_median"`
	// Cores: the host's cores (the most any cell recorded).
	Cores int `json:"cores"`
	// Contention: the median over the cells of max(1, load1 / cores),
	// runnable threads per core. Below one per core each thread has a
	// core of its own, so a guest is not slowed: no less than 1.
	Contention float64 `json:"contention"`
}

// LoadMismatch says that the baseline and a candidate, both keeping the
// host's clock, ran at host loads whose contention differs by more than
// Bound: their timings cannot be told apart from the load's.
type LoadMismatch struct {
	Base SideLoad `json:"base"`
	Cand SideLoad `json:"cand"`
	// Ratio: the larger side's Contention over the smaller's.
	Ratio float64 `json:"ratio"`
	Bound float64 `json:"bound"`
}

// String is the note every output prints.
func (l LoadMismatch) String() string {
	return fmt.Sprintf("host load differed: the baseline's cells started at load %.1f on %d cores (median of %d), the candidate's at %.1f on %d (median of %d), %.2fx as contended, beyond load_bound %g; both keep the host's clock, so their timings move with the host's load and a timing regression cannot be told from it. Re-run both interleaved in one session (kregress run with both variants), or under TCG use vm.clock icount",
		l.Base.Load1, l.Base.Cores, l.Base.Cells, l.Cand.Load1, l.Cand.Cores, l.Cand.Cells, l.Ratio, l.Bound)
}

// TimingUnit reports whether a metric in unit moves with the guest's
// clock: a time ("us", "s"), a time per thing ("ns/op"), or a rate per
// time ("reads/s", "MB/s"). Counts, shares ("%") and sizes do not.
func TimingUnit(unit string) bool {
	num, den, per := strings.Cut(strings.ToLower(strings.TrimSpace(unit)), "/")
	if !per {
		return timeUnit(num)
	}
	return timeUnit(num) || timeUnit(den)
}

func timeUnit(u string) bool {
	switch strings.TrimSpace(u) {
	case "ns", "us", "µs", "μs", "ms", "s", "sec", "secs", "second", "seconds", "min", "minute", "minutes", "h", "hour", "hours":
		return true
	}
	return false
}

// hostClock reports whether a cell's guest kept the host's clock (runs
// stored before the clock was recorded did).
func hostClock(p results.Provenance) bool { return cmp.Or(p.Clock, "host") == "host" }

// sideLoad is rs's load over its ok cells, and whether every ok cell kept
// the host clock and at least one recorded its load.
func sideLoad(rs []*results.Result) (SideLoad, bool) {
	var s SideLoad
	var loads, contention []float64
	for _, r := range rs {
		if !r.Status.OK() {
			continue
		}
		p := r.Provenance
		if !hostClock(p) {
			return SideLoad{}, false
		}
		load, cores := p.HostLoad1, p.HostCores
		if h := p.HostLoad; h != nil && h.Cores > 0 {
			load, cores = h.Load1Start, h.Cores
		} else if load <= 0 {
			// Not recorded (a zero load is omitted when stored, so
			// an idle host's old cell cannot be told from one that
			// never measured).
			continue
		}
		if cores <= 0 || load < 0 || math.IsNaN(load) || math.IsInf(load, 0) {
			continue
		}
		loads = append(loads, load)
		contention = append(contention, max(1, load/float64(cores)))
		s.Cores = max(s.Cores, cores)
	}
	if len(loads) == 0 {
		return SideLoad{}, false
	}
	s.Cells, s.Load1, s.Contention = len(loads), stats.Median(loads), stats.Median(contention)
	return s, true
}

// loadMismatch compares the loads of base and cand; nil unless both keep
// the host clock, both recorded their loads and their contention
// differs by more than bound (+Inf: never).
func loadMismatch(base, cand []*results.Result, bound float64) *LoadMismatch {
	if math.IsInf(bound, 1) {
		return nil
	}
	b, ok1 := sideLoad(base)
	c, ok2 := sideLoad(cand)
	if !ok1 || !ok2 {
		return nil
	}
	ratio := max(b.Contention, c.Contention) / min(b.Contention, c.Contention)
	if ratio <= bound {
		return nil
	}
	return &LoadMismatch{Base: b, Cand: c, Ratio: ratio, Bound: bound}
}

// holdForLoad keeps every timing metric of ms that was judged a
// regression from being one when the candidate's load differs from the
// baseline's (l not nil): it becomes unjudged and held. A timing
// improvement is kept, with a warning: it fails nothing, but the load may
// be all it is. Called once the other marks are final.
func holdForLoad(ms []Metric, l *LoadMismatch) {
	for j := range ms {
		m := &ms[j]
		m.LoadHeld = false
		if l == nil || !TimingUnit(m.Unit) {
			continue
		}
		switch m.Verdict {
		case verdict.Regression:
			m.Verdict, m.LoadHeld = verdict.Unjudged, true
			m.warn(fmt.Sprintf("%s: not called a regression: the sides ran at host loads %.2fx apart in contention (beyond load_bound %g) on the host's clock", m.Name, l.Ratio, l.Bound))
		case verdict.Improvement:
			m.warn(fmt.Sprintf("%s: the sides ran at host loads %.2fx apart in contention (beyond load_bound %g) on the host's clock: the improvement may be the load's", m.Name, l.Ratio, l.Bound))
		}
	}
}

// LoadNotes is one line per candidate whose load differs from the
// baseline's (Diff.LoadMismatch), in candidate order: "patched: host load
// differed: ...", without the name when there is one candidate.
func (d *Diff) LoadNotes() []string {
	var out []string
	for _, v := range d.Variants[1:] {
		l := d.LoadMismatch[v.Name]
		if l == nil {
			continue
		}
		note := l.String()
		if len(d.Variants) > 2 {
			note = v.Name + ": " + note
		}
		out = append(out, note)
	}
	return out
}

// loadHeldWhy says why held metric m (of candidate variant, against load
// l) makes the comparison UNJUDGED.
func loadHeldWhy(variant string, m *Metric, l *LoadMismatch) string {
	loads := "the sides' host loads differed"
	if l != nil {
		loads = fmt.Sprintf("the baseline ran at host load %.1f on %d cores, the candidate at %.1f on %d: %.2fx as contended, beyond load_bound %g", l.Base.Load1, l.Base.Cores, l.Cand.Load1, l.Cand.Cores, l.Ratio, l.Bound)
	}
	return fmt.Sprintf("%s: %s %s (p=%.3f, q=%.3f) not called a regression: %s, and on the host's clock a timing moves with the load, so the comparison cannot tell (re-run both interleaved in one session, or under TCG use vm.clock icount)",
		variant, m.Name, num.Delta(m.DeltaPct), m.P, m.Q, loads)
}
