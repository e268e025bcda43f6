package compare

import (
	"fmt"

	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// Regressions lists every candidate's regressions: failure rates first
// (a kernel that crashes is worse news than one that is slow), then
// significant metric changes.
func (d *Diff) Regressions() []string { return d.changes(verdict.Regression) }

// Improvements lists the candidates' significant improvements, as
// Regressions lists their regressions.
func (d *Diff) Improvements() []string { return d.changes(verdict.Improvement) }

// changes lists every candidate's failure rate, then metric, judged v,
// as "candidate: reads_per_sec -10.0% (p=0.001, q=0.004)".
func (d *Diff) changes(v verdict.Change) []string {
	var out []string
	for _, c := range d.Variants[1:] {
		if f := d.Failures[c.Name]; f.Verdict == v {
			out = append(out, fmt.Sprintf("%s: %s", c.Name, f.Reason))
		}
	}
	for _, c := range d.Variants[1:] {
		for _, m := range d.Metrics[c.Name] {
			if m.Verdict == v {
				out = append(out, fmt.Sprintf("%s: %s %s (p=%.3f, q=%.3f)", c.Name, m.Name, num.Delta(m.DeltaPct), m.P, m.Q))
			}
		}
	}
	return out
}
