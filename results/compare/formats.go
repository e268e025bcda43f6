package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kregress/kregress/results/verdict"
)

// Formats lists what Write can produce.
var Formats = []string{"table", "markdown", "json", "csv", "lkp"}

// Write renders the diff in format.
func (d *Diff) Write(w io.Writer, format string) error {
	switch format {
	case "", "table":
		d.WriteTable(w)
		return nil
	case "markdown", "md":
		return d.WriteMarkdown(w)
	case "json":
		return d.WriteJSON(w)
	case "csv":
		return d.WriteCSV(w)
	case "lkp":
		return d.WriteLKP(w)
	}
	return fmt.Errorf("unknown format %q (known: %s, html)", format, strings.Join(Formats, ", "))
}

func deltaString(m Metric) string { return fmtDelta(m.DeltaPct) }

// WriteMarkdown renders GitHub-flavoured Markdown, for CI summaries.
func (d *Diff) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "### kregress: candidates vs `%s`\n\n", d.Baseline)
	fmt.Fprintf(w, "Mann-Whitney U, false discovery rate %.2f (Benjamini-Hochberg q); median [%.0f%% CI]; failure rates: Boschloo's exact test (q over the candidates), except a candidate with no ok cell or one failing with a kernel report the baseline never printed (flagged), or one with no judged cell (unmeasured).\n\n", d.Options.Alpha, d.Options.Confidence*100)
	fmt.Fprintln(w, "| set | runs | failure rate vs baseline |\n|---|---|---|")
	for i, v := range d.Variants {
		fr := "baseline"
		if i > 0 {
			fr = failureCell(d.Failures[v.Name])
		}
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", v.Name, statusLine(v.Statuses), fr)
	}
	for _, v := range d.Variants[1:] {
		fmt.Fprintf(w, "\n#### `%s` vs `%s`\n\n", v.Name, d.Baseline)
		if len(d.Metrics[v.Name]) == 0 {
			fmt.Fprintln(w, "No ok cell: nothing measured.")
			continue
		}
		fmt.Fprintf(w, "| metric | %s | %s | change | p | q | n | verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n", d.Baseline, v.Name)
		for _, m := range d.Metrics[v.Name] {
			word := string(m.Verdict)
			if m.Verdict == verdict.Regression {
				word = "**regression**"
			}
			name := m.Name
			if m.Primary {
				name = "**" + name + "**"
			}
			fmt.Fprintf(w, "| %s (%s) | %s | %s | %s | %.3f | %.3f | %d+%d | %s |\n", name, m.Unit, fmtSummary(m.Base), fmtSummary(m.Cand), deltaString(m), m.P, m.Q, m.Base.N, m.Cand.N, word)
		}
	}
	if lines := d.UnavailableLines(); len(lines) > 0 {
		fmt.Fprint(w, "\n**Not measured** (the kernel cannot produce them; not a failure, not zero):\n\n")
		for _, l := range lines {
			fmt.Fprintf(w, "- `%s`: %s: %s\n", l.Set, l.Reason, strings.Join(l.Metrics, ", "))
		}
	}
	fmt.Fprintln(w, "\n#### irqs-off worst section holders\n\n| set | worst per run (median) | holders per run | holders per window | most common worst section |\n|---|--:|---|---|---|")
	for _, v := range d.Variants {
		sec := "-"
		if len(v.WorstSections) > 0 {
			sec = fmt.Sprintf("`%s` (%d)", v.WorstSections[0].Name, v.WorstSections[0].Count)
		}
		fmt.Fprintf(w, "| `%s` | %s us | %s | %s | %s |\n", v.Name, fmtNum(v.WorstUS.Median), fmtHolders(v.WorstHolders, 3), fmtHolders(v.WindowHolders, 4), sec)
	}
	if d.Variants[0].Selftests.Runs > 0 || len(d.SelftestChanges) > 0 {
		fmt.Fprintln(w, "\n#### cgroup selftests (correctness gate)\n\n| set | tests | outcomes vs baseline |\n|---|---|---|")
		for i, v := range d.Variants {
			vs := "baseline"
			if i > 0 {
				vs = "same"
				if ch := d.SelftestChanges[v.Name]; len(ch) > 0 {
					var parts []string
					for _, c := range ch {
						part := fmt.Sprintf("`%s` %s → %s", c.Test, c.Base, c.Cand)
						if c.Kind == Unconfirmed {
							part += fmt.Sprintf(" (unconfirmed: %d of %d boots, not flagged)", c.FailedBoots, c.Boots)
						}
						if c.Suspect != "" {
							part += " (suspect: " + c.Suspect + ")"
						}
						parts = append(parts, part)
					}
					vs = "**differs:** " + strings.Join(parts, "; ")
				}
			}
			fmt.Fprintf(w, "| `%s` | %s | %s |\n", v.Name, v.Selftests.Counts(), vs)
		}
	}
	if len(d.Reports) > 0 || len(d.Variants[0].Reports) > 0 {
		fmt.Fprintln(w, "\n#### kernel reports\n\n| set | report | cells | vs baseline |\n|---|---|--:|---|")
		for _, r := range d.Variants[0].Reports {
			fmt.Fprintf(w, "| `%s` | `%s` | %d of %d | baseline |\n", d.Variants[0].Name, r.Title, r.Cells, d.Variants[0].Judged())
		}
		for _, v := range d.Variants[1:] {
			for _, c := range d.Reports[v.Name] {
				vs := "also in baseline"
				if c.New {
					vs = "**new**"
				}
				fmt.Fprintf(w, "| `%s` | `%s` | %d of %d | %s |\n", v.Name, c.Title, c.Cells, c.Of, vs)
			}
		}
	}
	if news := d.NewReports(); len(news) > 0 {
		fmt.Fprintf(w, "\n**Flagged, kernel reports the baseline never printed:** %s\n", strings.Join(news, "; "))
	}
	if flags := d.SelftestFlags(); len(flags) > 0 {
		fmt.Fprintf(w, "\n**Flagged by the selftest gate:** %s\n", strings.Join(flags, "; "))
	}
	if un := d.SelftestUnconfirmed(); len(un) > 0 {
		fmt.Fprintf(w, "\nNot flagged, selftest failures seen in one boot only: %s\n", strings.Join(un, "; "))
	}
	regs := d.Regressions()
	if um := d.Unmeasured(); len(um) > 0 {
		fmt.Fprintf(w, "\n**Unmeasured (not passed):** %s\n", strings.Join(um, "; "))
	}
	unjudged := d.Unjudged()
	switch {
	case len(regs) > 0:
		fmt.Fprintf(w, "\n**%d significant regression(s):** %s\n", len(regs), strings.Join(regs, "; "))
	case len(unjudged) == 0 && len(d.Unmeasured()) == 0 && len(d.Failing()) == 0:
		// Never beside "Unmeasured": nothing of that candidate was seen.
		fmt.Fprintln(w, "\nNo significant regression.")
	}
	if len(unjudged) > 0 {
		fmt.Fprintf(w, "\n**Unjudged** (too few samples to call a change): %s\n", strings.Join(unjudged, "; "))
	}
	for _, line := range d.PowerLines() {
		fmt.Fprintf(w, "\n- %s", line)
	}
	if len(d.PowerLines()) > 0 {
		fmt.Fprintln(w)
	}
	return nil
}

// jsonDiff is the stable JSON shape of a diff.
type jsonDiff struct {
	Baseline    string                  `json:"baseline"`
	Alpha       float64                 `json:"alpha"`
	Confidence  float64                 `json:"confidence"`
	Sets        []*Variant              `json:"sets"`
	Comparisons map[string][]jsonMetric `json:"comparisons"`
	Regressions []string                `json:"regressions"`
	// Failures: candidate -> its failure rate against the baseline's.
	Failures map[string]FailureRate `json:"failures"`
	// SelftestChanges: candidate -> tests whose outcome differs.
	SelftestChanges map[string][]SelftestChange `json:"selftest_changes"`
	// KernelReports: candidate -> its kernel reports vs the baseline's.
	KernelReports map[string][]ReportChange `json:"kernel_reports"`
	// Failing: everything that fails a CI gate (what exit code 3 means);
	// Verdict is "fail" when it is not empty, else "unmeasured" when a
	// candidate had no cell that said anything about its kernel
	// (Unmeasured), else "unjudged" when a deciding metric could not be
	// judged (Unjudged), else "pass".
	Failing    []string `json:"failing"`
	Unmeasured []string `json:"unmeasured"`
	Unjudged   []string `json:"unjudged"`
	Verdict    string   `json:"verdict"`
}

type jsonMetric struct {
	Metric
	// DeltaPct is null when the change is not a percentage (from 0).
	DeltaPct *float64 `json:"delta_pct"`
	// CouldSeePct: the smallest change this comparison would have found
	// with 80% power, for a deciding metric found unchanged (null
	// otherwise, or when no change could be found).
	CouldSeePct *float64 `json:"could_see_pct"`
}

// WriteJSON renders the diff as JSON (NaN changes become null).
func (d *Diff) WriteJSON(w io.Writer) error {
	out := jsonDiff{Baseline: d.Baseline, Alpha: d.Options.Alpha, Confidence: d.Options.Confidence, Sets: d.Variants,
		Comparisons: map[string][]jsonMetric{}, Regressions: d.Regressions(), SelftestChanges: d.SelftestChanges, Failures: d.Failures,
		KernelReports: d.Reports, Failing: d.Failing()}
	for k, ms := range d.Metrics {
		for _, m := range ms {
			jm := jsonMetric{Metric: m}
			if !math.IsNaN(m.DeltaPct) && !math.IsInf(m.DeltaPct, 0) {
				v := m.DeltaPct
				jm.DeltaPct = &v
			}
			if !math.IsNaN(m.CouldSeePct) && !math.IsInf(m.CouldSeePct, 0) {
				v := m.CouldSeePct
				jm.CouldSeePct = &v
			}
			out.Comparisons[k] = append(out.Comparisons[k], jm)
		}
	}
	if out.Regressions == nil {
		out.Regressions = []string{}
	}
	out.Unmeasured = d.Unmeasured()
	if out.Unmeasured == nil {
		out.Unmeasured = []string{}
	}
	out.Unjudged = d.Unjudged()
	if out.Unjudged == nil {
		out.Unjudged = []string{}
	}
	out.Verdict = "fail"
	if out.Failing == nil {
		out.Failing, out.Verdict = []string{}, "pass"
		switch {
		case len(out.Unmeasured) > 0:
			out.Verdict = "unmeasured"
		case len(out.Unjudged) > 0:
			out.Verdict = "unjudged"
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteCSV renders one row per candidate and metric.
func (d *Diff) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"baseline", "candidate", "metric", "unit", "direction", "base_median", "base_lo", "base_hi", "base_n", "cand_median", "cand_lo", "cand_hi", "cand_n", "delta_pct", "p", "q", "verdict"})
	// A bound benchmath could not compute (too few samples) is empty,
	// as in the JSON (null), never "-Inf".
	f := func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 8, 64)
	}
	for _, v := range d.Variants[1:] {
		// An unmeasured candidate has no metric row: one row says so,
		// so that it is not read as a candidate that passed.
		if d.Failures[v.Name].Verdict == verdict.Unmeasured && len(d.Metrics[v.Name]) == 0 {
			cw.Write([]string{d.Baseline, v.Name, "", "", "", "", "", "", "0", "", "", "", "0", "", "", "", string(verdict.Unmeasured)})
		}
		for _, m := range d.Metrics[v.Name] {
			delta := ""
			if !math.IsNaN(m.DeltaPct) && !math.IsInf(m.DeltaPct, 0) {
				delta = f(m.DeltaPct)
			}
			cw.Write([]string{d.Baseline, v.Name, m.Name, m.Unit, string(m.Direction),
				f(m.Base.Median), f(m.Base.Lo), f(m.Base.Hi), strconv.Itoa(m.Base.N),
				f(m.Cand.Median), f(m.Cand.Lo), f(m.Cand.Hi), strconv.Itoa(m.Cand.N),
				delta, f(m.P), f(m.Q), string(m.Verdict)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteLKP renders the 0-day bot's view: mean ± relative stddev, %change
// of the means, one line per metric.
func (d *Diff) WriteLKP(w io.Writer) error {
	for _, v := range d.Variants[1:] {
		fmt.Fprintf(w, "%18s %18s\n", d.Baseline, v.Name)
		fmt.Fprintf(w, "%s\n", "---------------- ---------------------------")
		fmt.Fprintf(w, "%9s %%stddev     %%change         %%stddev\n", "")
		fmt.Fprintf(w, "%13s \\          |                \\\n", "")
		if f := d.Failures[v.Name]; f.Verdict == verdict.Unmeasured {
			fmt.Fprintf(w, "%14s UNMEASURED: %s\n", "", f.Reason)
		}
		for _, m := range d.Metrics[v.Name] {
			change := "~"
			if m.Base.Mean != 0 {
				change = fmt.Sprintf("%+.1f%%", (m.Cand.Mean-m.Base.Mean)/math.Abs(m.Base.Mean)*100)
			}
			mark := " "
			switch m.Verdict {
			case verdict.Regression, verdict.Improvement:
				mark = "*" // significant (U test, FDR-adjusted)
			case verdict.Unjudged:
				mark = "?" // too few samples to call any change
			}
			fmt.Fprintf(w, "%14s %s %9s %s %14s %s  %s\n", lkpNum(m.Base.Mean), lkpStddev(m.Base), change, mark, lkpNum(m.Cand.Mean), lkpStddev(m.Cand), m.Name)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "(means and the change of the means, as lkp-tests prints them; the other formats print medians.\n * significant: Mann-Whitney U on the samples (a test of the distributions, not of the means), Benjamini-Hochberg q < alpha;\n ? unjudged: too few samples for any change of the metric to reach alpha)")
	return nil
}

func lkpNum(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func lkpStddev(s Summary) string {
	if s.N < 2 || s.StddevPct < 0.5 {
		return "       "
	}
	return fmt.Sprintf("± %3.0f%%", s.StddevPct)
}

// failureCell renders a candidate's failure rate for the tables.
func failureCell(f FailureRate) string {
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
