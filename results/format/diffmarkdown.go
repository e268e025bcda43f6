package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// writeMarkdown renders GitHub-flavoured Markdown, for CI summaries.
// Each warning is a note line under the heading: it changes what the
// verdict below is about.
func writeMarkdown(w io.Writer, d *compare.Diff, warnings []string) {
	fmt.Fprintf(w, "### kregress: candidates vs %s\n\n", mdCode(d.Baseline))
	for _, warn := range warnings {
		fmt.Fprintf(w, "> **Warning:** %s\n\n", warn)
	}
	fmt.Fprintf(w, "Mann-Whitney U, false discovery rate %.2f (Benjamini-Hochberg q); median [%.0f%% CI]; failure rates: Boschloo's exact test (q over the candidates), except a candidate with no ok cell or one failing with a kernel report the baseline never printed (flagged), or one with no judged cell (unmeasured).\n\n", d.Options.Alpha, d.Options.Confidence*100)
	fmt.Fprintln(w, "| set | runs | failure rate vs baseline |\n|---|---|---|")
	for i, v := range d.Variants {
		fr := "baseline"
		if i > 0 {
			fr = failureCell(d.Failures[v.Name])
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", mdCode(v.Name), num.Statuses(v.Statuses), fr)
	}
	for _, v := range d.Variants[1:] {
		writeCandidateMarkdown(w, d, v)
	}
	if lines := d.UnavailableLines(); len(lines) > 0 {
		fmt.Fprint(w, "\n**Not measured** (the kernel cannot produce them; not a failure, not zero):\n\n")
		for _, l := range lines {
			fmt.Fprintf(w, "- %s: %s: %s\n", mdCode(l.Set), mdText(l.Reason), mdText(strings.Join(l.Metrics, ", ")))
		}
	}
	writeHoldersMarkdown(w, d)
	writeSelftestsMarkdown(w, d)
	writeReportsMarkdown(w, d)
	writeMarkdownVerdict(w, d)
}

// writeCandidateMarkdown renders one candidate's metrics, the deciding
// ones and the regressions in bold.
func writeCandidateMarkdown(w io.Writer, d *compare.Diff, v *compare.Variant) {
	fmt.Fprintf(w, "\n#### %s vs %s\n\n", mdCode(v.Name), mdCode(d.Baseline))
	if len(d.Metrics[v.Name]) == 0 {
		fmt.Fprintln(w, "No ok cell: nothing measured.")
		return
	}
	fmt.Fprintf(w, "| metric | %s | %s | change | p | q | n | verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n", mdText(d.Baseline), mdText(v.Name))
	for _, m := range d.Metrics[v.Name] {
		word := m.Verdict.Row()
		if m.Verdict == verdict.Regression {
			word = "**regression**"
		}
		name := mdText(m.Name)
		if m.Primary {
			name = "**" + name + "**"
		}
		fmt.Fprintf(w, "| %s (%s) | %s | %s | %s | %.3f | %.3f | %d+%d | %s |\n", name, mdText(m.Unit), Summary(m.Base), Summary(m.Cand), num.Delta(m.DeltaPct), m.P, m.Q, m.Base.N, m.Cand.N, word)
	}
}

// writeHoldersMarkdown renders who held irqs off the longest, per set.
func writeHoldersMarkdown(w io.Writer, d *compare.Diff) {
	fmt.Fprintln(w, "\n#### irqs-off worst section holders\n\n| set | worst per run (median) | holders per run | holders per window | most common worst section |\n|---|--:|---|---|---|")
	for _, v := range d.Variants {
		sec := "-"
		if len(v.WorstSections) > 0 {
			sec = fmt.Sprintf("%s (%d)", mdCode(v.WorstSections[0].Name), v.WorstSections[0].Count)
		}
		fmt.Fprintf(w, "| %s | %s us | %s | %s | %s |\n", mdCode(v.Name), num.Number(v.WorstUS.Median), mdText(Holders(v.WorstHolders, 3)), mdText(Holders(v.WindowHolders, 4)), sec)
	}
}

// writeSelftestsMarkdown renders the selftest gate's table, when the
// baseline ran selftests or a candidate's outcomes differ.
func writeSelftestsMarkdown(w io.Writer, d *compare.Diff) {
	if d.Variants[0].Selftests.Runs == 0 && len(d.SelftestChanges) == 0 {
		return
	}
	fmt.Fprintln(w, "\n#### selftests (correctness gate)\n\n| set | tests | outcomes vs baseline |\n|---|---|---|")
	for i, v := range d.Variants {
		vs := "baseline"
		if i > 0 {
			vs = "same"
			if ch := d.SelftestChanges[v.Name]; len(ch) > 0 {
				var parts []string
				for _, c := range ch {
					part := fmt.Sprintf("%s %s → %s", mdCode(c.Test), c.Base, c.Cand)
					if c.Kind == compare.Unconfirmed {
						part += fmt.Sprintf(" (unconfirmed: %d of %d boots, not flagged)", c.FailedBoots, c.Boots)
					}
					if c.Suspect != "" {
						part += " (suspect: " + mdText(c.Suspect) + ")"
					}
					parts = append(parts, part)
				}
				vs = "**differs:** " + strings.Join(parts, "; ")
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", mdCode(v.Name), v.Selftests.Counts(), vs)
	}
}

// writeReportsMarkdown renders the kernel reports' table, new ones in
// bold.
func writeReportsMarkdown(w io.Writer, d *compare.Diff) {
	if len(d.Reports) == 0 && len(d.Variants[0].Reports) == 0 {
		return
	}
	fmt.Fprintln(w, "\n#### kernel reports\n\n| set | report | cells | vs baseline |\n|---|---|--:|---|")
	for _, r := range reportRows(d) {
		vs := "baseline"
		switch {
		case r.Change == nil:
		case r.Change.New:
			vs = "**new**"
		default:
			vs = "also in baseline"
		}
		fmt.Fprintf(w, "| %s | %s | %d of %d | %s |\n", mdCode(r.Variant), mdCode(r.Title), r.Cells, r.Of, vs)
	}
}

// writeMarkdownVerdict renders what flags the candidates, the verdict
// and what the comparison could have seen.
func writeMarkdownVerdict(w io.Writer, d *compare.Diff) {
	writeParagraph(w, "**Flagged, kernel reports the baseline never printed:** ", d.NewReports())
	writeParagraph(w, "**Flagged by the selftest gate:** ", d.SelftestFlags())
	writeParagraph(w, "Not flagged, selftest failures seen in one boot only: ", d.SelftestUnconfirmed())
	writeParagraph(w, "**Unmeasured (not passed):** ", d.Unmeasured())
	fmt.Fprintf(w, "\n**Verdict:** %s\n", mdText(d.Headline()))
	lines := d.PowerLines()
	for _, line := range lines {
		fmt.Fprintf(w, "\n- %s", mdText(line))
	}
	if len(lines) > 0 {
		fmt.Fprintln(w)
	}
	for _, note := range d.LoadNotes() {
		fmt.Fprintf(w, "\n**Note:** %s\n", mdText(note))
	}
}

// writeParagraph renders label and the items joined by "; " as a
// paragraph of its own, nothing when there are none.
func writeParagraph(w io.Writer, label string, items []string) {
	if len(items) > 0 {
		fmt.Fprintf(w, "\n%s%s\n", label, mdText(strings.Join(items, "; ")))
	}
}
