package format

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// writeTable prints the diff for a terminal: one block per candidate,
// benchstat-style columns, then the irqsoff holders and the verdict.
func writeTable(w io.Writer, d *compare.Diff) {
	fmt.Fprintf(w, "baseline: %s   (Mann-Whitney U, false discovery rate %.2f over the metrics judged (q, Benjamini-Hochberg); median [%.0f%% CI])\n", d.Baseline, d.Options.Alpha, d.Options.Confidence*100)
	fmt.Fprintf(w, "\nruns per variant (failure rate: %s):\n", strings.Join(results.StatusNames(results.KernelFailures()), ", "))
	for i, v := range d.Variants {
		fr := ""
		if i > 0 {
			fr = "  " + strings.ReplaceAll(failureCell(d.Failures[v.Name]), "**", "")
		}
		fmt.Fprintf(w, "  %-20s %s%s\n", v.Name, num.Statuses(v.Statuses), fr)
	}
	for _, v := range d.Variants[1:] {
		writeCandidateTable(w, d, v)
	}
	writeUnavailable(w, d)
	writeHoldersTable(w, d)
	writeReports(w, d)
	writeSelftests(w, d)
	fmt.Fprintln(w)
	writeTableVerdict(w, d)
}

// writeCandidateTable prints one candidate's metrics against the
// baseline, then their warnings, each once.
func writeCandidateTable(w io.Writer, d *compare.Diff, v *compare.Variant) {
	ms := d.Metrics[v.Name]
	fmt.Fprintf(w, "\n%s vs %s\n", v.Name, d.Baseline)
	if len(ms) == 0 {
		if d.Failures[v.Name].Verdict == verdict.Unmeasured {
			fmt.Fprintln(w, "  unmeasured: no cell says anything about its kernel (infrastructure errors): not judged, not passed")
			return
		}
		fmt.Fprintln(w, "  no ok cell: nothing measured (its failure rate is judged above)")
		return
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
			Summary(m.Base), Summary(m.Cand), num.Delta(m.DeltaPct), m.P, m.Q, m.Base.N, m.Cand.N, m.Verdict.Row())
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

// writeUnavailable lists the metrics a variant's kernel could not
// produce, one line per reason (the lock-hold figures share one), so a
// metric missing from the table above is never a silent gap.
func writeUnavailable(w io.Writer, d *compare.Diff) {
	lines := d.UnavailableLines()
	if len(lines) > 0 {
		fmt.Fprintln(w, "\nnot measured (the kernel cannot produce them; not a failure, not zero):")
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %-20s %s: %s\n", l.Set, l.Reason, strings.Join(l.Metrics, ", "))
	}
}

// writeHoldersTable prints who held irqs off the longest, per variant.
func writeHoldersTable(w io.Writer, d *compare.Diff) {
	fmt.Fprintln(w, "\nirqs-off worst section, who held it:")
	for _, v := range d.Variants {
		fmt.Fprintf(w, "  %-20s worst per run: median %s us (range %s); held by %s\n", v.Name, num.Number(v.WorstUS.Median), valueRange(v.WorstUS.Values), Holders(v.WorstHolders, 3))
		fmt.Fprintf(w, "  %-20s per window: %s\n", "", Holders(v.WindowHolders, 4))
		for i, sec := range v.WorstSections {
			if i == 2 {
				break
			}
			fmt.Fprintf(w, "  %-20s %d run(s): %s\n", "", sec.Count, sec.Name)
		}
	}
}

// writeTableVerdict prints the verdict line, then what else flags or
// excuses the candidates.
func writeTableVerdict(w io.Writer, d *compare.Diff) {
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
	fmt.Fprintf(w, "verdict: %s\n", d.Headline())
	if failing && len(unmeasured) > 0 {
		fmt.Fprintf(w, "UNMEASURED: %s\n", strings.Join(unmeasured, "; "))
	}
	if failing && len(unjudged) > 0 {
		fmt.Fprintf(w, "also unjudged: %s\n", strings.Join(unjudged, "; "))
	}
	for _, line := range d.PowerLines() {
		fmt.Fprintf(w, "  %s\n", line)
	}
	for _, note := range d.LoadNotes() {
		fmt.Fprintf(w, "NOTE, %s\n", note)
	}
	writeLines(w, "FLAGGED, kernel reports the baseline never printed: ", d.NewReports())
	writeLines(w, "FLAGGED by the selftest gate: ", d.SelftestFlags())
	writeLines(w, "not flagged, selftest failures seen in one boot only: ", d.SelftestUnconfirmed())
	writeLines(w, "selftests fixed: ", d.SelftestFixes())
}

// writeLines prints label and the items joined by "; " on one line,
// nothing when there are none.
func writeLines(w io.Writer, label string, items []string) {
	if len(items) > 0 {
		fmt.Fprintf(w, "%s%s\n", label, strings.Join(items, "; "))
	}
}

// failureCell renders a candidate's failure rate for the tables.
func failureCell(f compare.FailureRate) string {
	if f.Verdict == verdict.Unmeasured || f.CandCells == 0 {
		return "**UNMEASURED**: no cell judged (" + f.Reason + ")"
	}
	s := fmt.Sprintf("%d/%d failed (baseline %d/%d)", f.CandFailed, f.CandCells, f.BaseFailed, f.BaseCells)
	switch f.Verdict {
	case verdict.Regression:
		return "**REGRESSION**: " + s
	case verdict.Improvement:
		return "fewer failures: " + s
	}
	return s
}
