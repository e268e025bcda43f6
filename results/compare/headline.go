package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// Headline is d's verdict in the words every output prints after
// "verdict:" (the table, Markdown, HTML and JSON alike), in the order of
// the exit codes: regressions and other flags (3), unmeasured candidates
// (1), UNJUDGED (9), then a pass. "No significant change" is said only
// when every metric that can be judged was judged: otherwise the words
// name what was not judged and how large it looked.
func (d *Diff) Headline() string {
	regs := d.Regressions()
	unmeasured := d.Unmeasured()
	unjudged := d.Unjudged()
	switch {
	case len(regs) > 0:
		// What improved is found too: a trade (a shorter lock hold for
		// fewer reads) is read from one line.
		head := fmt.Sprintf("%d significant regression(s): %s", len(regs), strings.Join(regs, "; "))
		if imps := d.Improvements(); len(imps) > 0 {
			head += "; improvements: " + strings.Join(imps, "; ")
		}
		return head
	case len(d.Failing()) > 0:
		return "FLAGGED (below: new kernel reports or selftest failures)"
	case len(unmeasured) > 0:
		return "unmeasured: " + strings.Join(unmeasured, "; ")
	}
	var deciding, seen, open, rest []string
	n1, n2 := 0, 0
	for _, u := range d.unjudgedMetrics() {
		n1, n2 = u.Base.N, u.Cand.N
		switch u.Kind {
		case decidingUnjudged, loadHeld:
			deciding = append(deciding, u.why(d.Options))
		case seenRegression:
			seen = append(seen, d.short(u))
		case notRuledOut:
			open = append(open, fmt.Sprintf("%s (could be %s)", d.short(u), WorstText(u.Metric)))
		default:
			rest = append(rest, d.short(u))
		}
	}
	clauses := []string{d.primaryState()}
	clauses = append(clauses, deciding...)
	if len(seen) > 0 {
		clauses = append(clauses, fmt.Sprintf("seen to change, not proven at %d+%d: %s", n1, n2, strings.Join(seen, ", ")))
	}
	if len(open) > 0 {
		clauses = append(clauses, fmt.Sprintf("not ruled out at %d+%d (a pass needs each metric's boots to exclude %gx worse): %s", n1, n2, d.Options.RuleOut, strings.Join(open, ", ")))
	}
	if len(rest) > 0 {
		clauses = append(clauses, fmt.Sprintf("not judged at %d+%d, no regression seen: %s", n1, n2, strings.Join(rest, ", ")))
	}
	watched := d.watchedOpen()
	if len(watched) > 0 {
		clauses = append(clauses, "watched, not gating: "+strings.Join(watched, ", "))
	}
	if need := d.BootsToJudge(); len(seen)+len(open)+len(rest) > 0 && need > 0 {
		clauses = append(clauses, fmt.Sprintf("%d boots per side would judge them", need))
	}
	imps := d.Improvements()
	switch {
	case len(unjudged) > 0:
		return "UNJUDGED — " + joinClauses(clauses...)
	case len(rest) > 0 || len(watched) > 0:
		head := "no significant regression among the judged metrics"
		if len(imps) > 0 {
			head += "; improvements: " + strings.Join(imps, "; ")
		}
		return head + " — " + joinClauses(clauses...)
	case len(imps) > 0:
		return "no significant regression; improvements: " + strings.Join(imps, "; ")
	}
	return "no significant change"
}

// watchedOpen names each watched metric whose boots leave the margin
// possible (Metric.WatchedOpen): "irqsoff_worst_us +3.4% (could be
// +67.0%)", with the candidate when there are several. It is reported so
// that a reader sees what the boots could not bound, and never keeps the
// comparison from passing.
func (d *Diff) watchedOpen() []string {
	var out []string
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			// An unjudged one is named with the metrics not judged.
			if !m.WatchedOpen || m.Verdict == verdict.Unjudged {
				continue
			}
			item := fmt.Sprintf("%s %s (could be %s)", m.Name, num.Delta(m.DeltaPct), WorstText(&m))
			if len(d.Variants) > 2 {
				item = v.Name + ": " + item
			}
			out = append(out, item)
		}
	}
	return out
}

// primaryState says what became of each judged primary metric: "primary
// rstat_lock_hold_p50_us: no change (could see >= 50%)"; "" when there
// is none.
func (d *Diff) primaryState() string {
	var parts []string
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			if !m.Primary || m.Verdict == verdict.Info {
				continue
			}
			name := m.Name
			if len(d.Variants) > 2 {
				name = v.Name + " " + name
			}
			state := string(m.Verdict)
			switch m.Verdict {
			case verdict.NoChange:
				state = "no change"
				if m.NotRuledOut {
					state = "no change proven, not ruled out"
				}
				if !math.IsNaN(m.CouldSeePct) && !math.IsInf(m.CouldSeePct, 1) {
					state += fmt.Sprintf(" (could see >= %s)", strings.TrimSuffix(fmt.Sprintf("%.1f", m.CouldSeePct), ".0")+"%")
				}
			case verdict.Unjudged:
				state = "unjudged"
			}
			parts = append(parts, "primary "+name+": "+state)
		}
	}
	return strings.Join(parts, ", ")
}

// joinClauses joins the non-empty clauses with "; ".
func joinClauses(clauses ...string) string {
	var out []string
	for _, c := range clauses {
		if c != "" {
			out = append(out, c)
		}
	}
	return strings.Join(out, "; ")
}
