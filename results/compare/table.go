package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/verdict"
)

// WriteTable prints the diff for a terminal: one block per candidate,
// benchstat-style columns, then the irqsoff holders and the verdict.
func (d *Diff) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "baseline: %s   (Mann-Whitney U, false discovery rate %.2f over the metrics judged (q, Benjamini-Hochberg); median [%.0f%% CI])\n", d.Baseline, d.Options.Alpha, d.Options.Confidence*100)
	fmt.Fprintln(w, "\nruns per variant (failure rate: crashed, timeout, boot_failed, agent_failed, bad_output):")
	for i, v := range d.Variants {
		fr := ""
		if i > 0 {
			fr = "  " + strings.ReplaceAll(failureCell(d.Failures[v.Name]), "**", "")
		}
		fmt.Fprintf(w, "  %-20s %s%s\n", v.Name, statusLine(v.Statuses), fr)
	}
	for _, v := range d.Variants[1:] {
		ms := d.Metrics[v.Name]
		fmt.Fprintf(w, "\n%s vs %s\n", v.Name, d.Baseline)
		if len(ms) == 0 {
			if d.Failures[v.Name].Verdict == verdict.Unmeasured {
				fmt.Fprintln(w, "  unmeasured: no cell says anything about its kernel (infrastructure errors): not judged, not passed")
				continue
			}
			fmt.Fprintln(w, "  no ok cell: nothing measured (its failure rate is judged above)")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "metric\t%s\t%s\tchange\tp\tq\tn\tverdict\t\n", d.Baseline, v.Name)
		warn := map[string]bool{}
		for _, m := range ms {
			name := m.Name + " (" + m.Unit + ")"
			if m.Primary {
				name = "* " + name
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tp=%.3f\tq=%.3f\t%d+%d\t%s\t\n", name,
				fmtSummary(m.Base), fmtSummary(m.Cand), fmtDelta(m.DeltaPct), m.P, m.Q, m.Base.N, m.Cand.N, m.Verdict)
			for _, x := range m.Warnings {
				warn[x] = true
			}
		}
		tw.Flush()
		var ws []string
		for x := range warn {
			ws = append(ws, x)
		}
		sort.Strings(ws)
		for _, x := range ws {
			fmt.Fprintf(w, "  warning: %s\n", x)
		}
	}
	d.writeUnavailable(w)
	fmt.Fprintln(w, "\nirqs-off worst section, who held it:")
	for _, v := range d.Variants {
		fmt.Fprintf(w, "  %-20s worst per run: median %s us (range %s); held by %s\n", v.Name, fmtNum(v.WorstUS.Median), fmtRange(v.WorstUS.Values), fmtHolders(v.WorstHolders, 3))
		fmt.Fprintf(w, "  %-20s per window: %s\n", "", fmtHolders(v.WindowHolders, 4))
		for i, sec := range v.WorstSections {
			if i == 2 {
				break
			}
			fmt.Fprintf(w, "  %-20s %d run(s): %s\n", "", sec.Count, sec.Name)
		}
	}
	d.writeReports(w)
	d.writeSelftests(w)
	fmt.Fprintln(w)
	regs := d.Regressions()
	imps := d.Improvements()
	if len(d.Options.Primary) > 0 {
		level := d.Options.Alpha
		for _, v := range d.Variants[1:] {
			for _, m := range d.Metrics[v.Name] {
				if m.Primary {
					level = m.Alpha
				}
			}
		}
		fmt.Fprintf(w, "(* primary metric: judged first, its own false-discovery family at alpha %.3g; with other metrics judged, they get the rest of %.3g)\n", level, d.Options.Alpha)
	}
	unmeasured := d.Unmeasured()
	unjudged := d.Unjudged()
	// The verdict line follows the exit code's order: anything failing
	// (exit 3) before unmeasured (1) before unjudged (9).
	failing := len(d.Failing()) > 0
	switch {
	case len(regs) > 0:
		fmt.Fprintf(w, "verdict: %d significant regression(s): %s\n", len(regs), strings.Join(regs, "; "))
	case failing:
		fmt.Fprintln(w, "verdict: FLAGGED (below: new kernel reports or selftest failures)")
	case len(unmeasured) > 0:
		// Never "no significant change": a candidate was not seen at all.
		fmt.Fprintf(w, "verdict: unmeasured: %s\n", strings.Join(unmeasured, "; "))
	case len(unjudged) > 0:
		fmt.Fprintf(w, "verdict: UNJUDGED: %s\n", strings.Join(unjudged, "; "))
	case len(imps) > 0:
		fmt.Fprintf(w, "verdict: no significant regression; improvements: %s\n", strings.Join(imps, "; "))
	default:
		fmt.Fprintln(w, "verdict: no significant change")
	}
	if failing && len(unmeasured) > 0 {
		fmt.Fprintf(w, "UNMEASURED: %s\n", strings.Join(unmeasured, "; "))
	}
	if failing && len(unjudged) > 0 {
		fmt.Fprintf(w, "also unjudged: %s\n", strings.Join(unjudged, "; "))
	}
	for _, line := range d.PowerLines() {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if news := d.NewReports(); len(news) > 0 {
		fmt.Fprintf(w, "FLAGGED, kernel reports the baseline never printed: %s\n", strings.Join(news, "; "))
	}
	if flags := d.SelftestFlags(); len(flags) > 0 {
		fmt.Fprintf(w, "FLAGGED by the selftest gate: %s\n", strings.Join(flags, "; "))
	}
	if un := d.SelftestUnconfirmed(); len(un) > 0 {
		fmt.Fprintf(w, "not flagged, selftest failures seen in one boot only: %s\n", strings.Join(un, "; "))
	}
	if fixes := d.SelftestFixes(); len(fixes) > 0 {
		fmt.Fprintf(w, "selftests fixed: %s\n", strings.Join(fixes, "; "))
	}
}

// Improvements lists the candidates' significant improvements, as Regressions
// lists their regressions.
func (d *Diff) Improvements() []string {
	var out []string
	for _, v := range d.Variants[1:] {
		if f := d.Failures[v.Name]; f.Verdict == verdict.Improvement {
			out = append(out, fmt.Sprintf("%s: %s", v.Name, f.Reason))
		}
	}
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			if m.Verdict == verdict.Improvement {
				out = append(out, fmt.Sprintf("%s: %s %s (p=%.3f, q=%.3f)", v.Name, m.Name, fmtDelta(m.DeltaPct), m.P, m.Q))
			}
		}
	}
	return out
}

// StatusLine renders status counts as "1 crashed, 5 ok".
func StatusLine(st map[results.Status]int) string { return statusLine(st) }

// FormatSummary renders "median [lo, hi]".
func FormatSummary(s Summary) string { return fmtSummary(s) }

// FormatNumber renders a figure with as many digits as it deserves.
func FormatNumber(v float64) string { return fmtNum(v) }

// FormatHolders renders the first n holders with their shares.
func FormatHolders(hs []Holder, n int) string { return fmtHolders(hs, n) }

func statusLine(st map[results.Status]int) string {
	var keys []results.Status
	for k := range st {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", st[k], k))
	}
	return strings.Join(parts, ", ")
}

func fmtSummary(s Summary) string {
	if s.N == 0 {
		return "-"
	}
	if s.Lo == s.Hi || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || math.IsNaN(s.Lo) {
		return fmtNum(s.Median)
	}
	return fmt.Sprintf("%s [%s, %s]", fmtNum(s.Median), fmtNum(s.Lo), fmtNum(s.Hi))
}

func fmtRange(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return fmtNum(lo) + ".." + fmtNum(hi)
}

func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func fmtHolders(hs []Holder, n int) string {
	if len(hs) == 0 {
		return "(no section recorded)"
	}
	var parts []string
	for i, h := range hs {
		if i == n {
			parts = append(parts, fmt.Sprintf("+%d more", len(hs)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", h.Name, h.Share*100))
	}
	return strings.Join(parts, ", ")
}

// writeUnavailable lists the metrics a variant's kernel could not
// produce, one line per reason (the lock-hold figures share one), so a
// metric missing from the table above is never a silent gap.
func (d *Diff) writeUnavailable(w io.Writer) {
	lines := d.UnavailableLines()
	if len(lines) > 0 {
		fmt.Fprintln(w, "\nnot measured (the kernel cannot produce them; not a failure, not zero):")
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %-20s %s: %s\n", l.Set, l.Reason, strings.Join(l.Metrics, ", "))
	}
}

// UnavailableLine is one set's metrics that share one reason: what every
// output format lists for a metric missing from its table.
type UnavailableLine struct {
	Set string
	UnavailableGroup
}

// UnavailableLines lists, set by set, the metrics each set's kernel
// could not produce, grouped by reason.
func (d *Diff) UnavailableLines() []UnavailableLine {
	var out []UnavailableLine
	for _, v := range d.Variants {
		for _, g := range UnavailableByReason(v.Unavailable) {
			out = append(out, UnavailableLine{Set: v.Name, UnavailableGroup: g})
		}
	}
	return out
}

// UnavailableGroup is the metrics that share one reason.
type UnavailableGroup struct {
	Reason  string
	Metrics []string
}

// UnavailableByReason groups unavailable metrics by reason, in order.
func UnavailableByReason(us []agentproto.Unavailable) []UnavailableGroup {
	var out []UnavailableGroup
	at := map[string]int{}
	for _, u := range us {
		i, ok := at[u.Reason]
		if !ok {
			i = len(out)
			at[u.Reason] = i
			out = append(out, UnavailableGroup{Reason: u.Reason})
		}
		out[i].Metrics = append(out[i].Metrics, u.Metric)
	}
	return out
}
