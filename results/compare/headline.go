package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// HeadlineCase is one way Headline's line can read: its fixed words as a
// format (verbs for what varies), when Headline says it, and the exit code
// --fail-on-regression gives it. Headline prints exactly these formats,
// docs/verdict.md's verdict table is HeadlineMarkdown of them (its test
// fails when the page disagrees), and a test reaches every case from
// stored results, so the page, this list and the code cannot drift apart.
type HeadlineCase struct {
	Format string
	When   string
	Exit   verdict.Exit
}

// The cases of Headline's line, in the order it tries them (the order of
// the exit codes: 3, then 1, then 9, then a pass).
const (
	CaseRegressions = iota
	CaseRegressionsImproved
	CaseFlagged
	CaseUnmeasured
	CaseUnjudged
	CaseNotJudgedImproved
	CaseNotJudged
	CaseImproved
	CaseNoChange
)

// HeadlineCases are the lines Headline prints, indexed by the Case
// constants.
var HeadlineCases = [...]HeadlineCase{
	CaseRegressions:         {"%d significant regression(s): %s", "a candidate's failure rate or a metric got significantly worse", verdict.ExitRegression},
	CaseRegressionsImproved: {"%d significant regression(s): %s; improvements: %s", "as the line above, and other metrics improved significantly (a trade, read from one line)", verdict.ExitRegression},
	CaseFlagged:             {"FLAGGED (below: new kernel reports or selftest failures)", "no failure rate or metric got worse, but a candidate printed a kernel report the baseline never printed, or a selftest newly failed in two boots", verdict.ExitRegression},
	CaseUnmeasured:          {"unmeasured: %s", "a candidate had no cell that said anything about its kernel (every cell an infrastructure error)", verdict.ExitFailure},
	CaseUnjudged:            {"UNJUDGED — %s", "nothing regressed, but a deciding metric had too few boots, a metric leaning worse was seen to change, or a metric's boots do not rule out the margin: the clauses below say which", verdict.ExitUnjudged},
	CaseNotJudgedImproved:   {"no significant regression among the judged metrics; improvements: %s — %s", "as the next line, and some metrics improved significantly", verdict.ExitOK},
	CaseNotJudged:           {"no significant regression among the judged metrics — %s", "nothing regressed, but some secondary metrics had too few boots to be judged and none looked worse, or a watched metric's boots do not rule out the margin", verdict.ExitOK},
	CaseImproved:            {"no significant regression; improvements: %s", "every metric that can be judged was judged, nothing got worse, some improved", verdict.ExitOK},
	CaseNoChange:            {"no significant change", "every metric that can be judged was judged, nothing changed", verdict.ExitOK},
}

// HeadlineClauses are the clauses an UNJUDGED line and a line of metrics
// not judged are made of, in the order they appear, joined by "; ".
var HeadlineClauses = [...]HeadlineCase{
	clausePrimary:     {"primary %s: %s", "what became of each primary metric: `no change (could see >= N%)`, `no change proven, not ruled out`, `too few boots`", verdict.ExitOK},
	clauseDeciding:    {"%s: %s too few boots (n=%d+%d in a family of %d: the smallest possible q is %.3f > alpha %.3g; %d per side would reach it)", "a deciding metric (a primary one, or any when none is) had too few boots for its family: UNJUDGED", verdict.ExitUnjudged},
	clauseSeen:        {"seen to change, not proven at %d+%d: %s", "a metric not called leans worse and was seen to change: UNJUDGED", verdict.ExitUnjudged},
	clauseNotRuledOut: {"not ruled out at %d+%d (a pass needs each metric's boots to exclude %gx worse): %s", "a metric not called could still be R times worse (`rule_out`, default 1.5, or its noise floor): its boots do not rule out the margin: UNJUDGED", verdict.ExitUnjudged},
	clauseRest:        {"not judged at %d+%d, no regression seen: %s", "secondary metrics with too few boots that did not look worse: named, not gated (a watched one with `(watched, could be ...)`)", verdict.ExitOK},
	clauseWatched:     {"watched, not gating: %s", "a watched metric (not in `gating_metrics`) judged unchanged whose boots do not rule out the margin: named with how bad it could be, not gated", verdict.ExitOK},
	clauseNeed:        {"%d boots per side would judge them", "how many boots per side would likely judge or rule out the metrics named", verdict.ExitOK},
}

// Indexes of HeadlineClauses.
const (
	clausePrimary = iota
	clauseDeciding
	clauseSeen
	clauseNotRuledOut
	clauseRest
	clauseWatched
	clauseNeed
)

// Headline is d's verdict in the words every output prints after
// "verdict:" (the table, Markdown, HTML and JSON alike), in the order of
// the exit codes: regressions and other flags (3), unmeasured candidates
// (1), UNJUDGED (9), then a pass. "No significant change" is said only
// when every metric that can be judged was judged: otherwise the words
// name what was not judged and how large it looked.
func (d *Diff) Headline() string {
	_, line := d.headline()
	return line
}

// HeadlineCase is which of HeadlineCases d's Headline is.
func (d *Diff) HeadlineCase() int {
	c, _ := d.headline()
	return c
}

// headline is Headline and its case.
func (d *Diff) headline() (int, string) {
	say := func(c int, args ...any) (int, string) { return c, fmt.Sprintf(HeadlineCases[c].Format, args...) }
	clause := func(c int, args ...any) string { return fmt.Sprintf(HeadlineClauses[c].Format, args...) }
	regs := d.Regressions()
	unmeasured := d.Unmeasured()
	unjudged := d.Unjudged()
	switch {
	case len(regs) > 0:
		// What improved is found too: a trade (a shorter lock hold for
		// fewer reads) is read from one line.
		if imps := d.Improvements(); len(imps) > 0 {
			return say(CaseRegressionsImproved, len(regs), strings.Join(regs, "; "), strings.Join(imps, "; "))
		}
		return say(CaseRegressions, len(regs), strings.Join(regs, "; "))
	case len(d.Failing()) > 0:
		return say(CaseFlagged)
	case len(unmeasured) > 0:
		return say(CaseUnmeasured, strings.Join(unmeasured, "; "))
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
		clauses = append(clauses, clause(clauseSeen, n1, n2, strings.Join(seen, ", ")))
	}
	if len(open) > 0 {
		clauses = append(clauses, clause(clauseNotRuledOut, n1, n2, d.Options.RuleOut, strings.Join(open, ", ")))
	}
	if len(rest) > 0 {
		clauses = append(clauses, clause(clauseRest, n1, n2, strings.Join(rest, ", ")))
	}
	watched := d.watchedOpen()
	if len(watched) > 0 {
		clauses = append(clauses, clause(clauseWatched, strings.Join(watched, ", ")))
	}
	if need := d.BootsToJudge(); len(seen)+len(open)+len(rest) > 0 && need > 0 {
		clauses = append(clauses, clause(clauseNeed, need))
	}
	imps := d.Improvements()
	switch {
	case len(unjudged) > 0:
		return say(CaseUnjudged, joinClauses(clauses...))
	case (len(rest) > 0 || len(watched) > 0) && len(imps) > 0:
		return say(CaseNotJudgedImproved, strings.Join(imps, "; "), joinClauses(clauses...))
	case len(rest) > 0 || len(watched) > 0:
		return say(CaseNotJudged, joinClauses(clauses...))
	case len(imps) > 0:
		return say(CaseImproved, strings.Join(imps, "; "))
	}
	return say(CaseNoChange)
}

// HeadlineMarkdown is docs/verdict.md's table of the verdict line: each
// case and clause as the page quotes it (a number as N, names and figures
// as ..., the margin as R), when, and its exit code.
func HeadlineMarkdown() string {
	var b strings.Builder
	b.WriteString("| verdict line | when | exit (`--fail-on-regression`) |\n|---|---|---|\n")
	for _, c := range HeadlineCases {
		fmt.Fprintf(&b, "| `%s` | %s | %d |\n", quotedForm(c.Format), c.When, c.Exit)
	}
	b.WriteString("\nThe clauses of an `UNJUDGED` line and of a line of metrics not judged, in their order:\n\n")
	b.WriteString("| clause | when |\n|---|---|\n")
	for _, c := range HeadlineClauses {
		fmt.Fprintf(&b, "| `%s` | %s |\n", quotedForm(c.Format), c.When)
	}
	return b.String()
}

// quotedForm is a format as the docs quote it: each verb replaced by
// what it stands for.
func quotedForm(format string) string {
	return strings.NewReplacer("%d", "N", "%s", "...", "%.3f", "Q", "%.3g", "A", "%g", "R").Replace(format)
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
				state = "too few boots"
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
