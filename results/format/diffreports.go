package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/kregress/kregress/results/compare"
)

// writeReports prints each variant's kernel reports; the first excerpt
// of a new one is shown so the reader sees the trace without digging.
func writeReports(w io.Writer, d *compare.Diff) {
	any := false
	for _, v := range d.Variants {
		if len(v.Reports) > 0 {
			any = true
		}
	}
	if !any {
		fmt.Fprintln(w, "\nkernel reports (WARNING, BUG, lockdep, stalls, panics): none")
		return
	}
	fmt.Fprintln(w, "\nkernel reports (WARNING, BUG, lockdep, stalls, panics):")
	for _, r := range reportRows(d) {
		if r.Change == nil {
			fmt.Fprintf(w, "  %-20s %s (%d of %d cells)\n", r.Variant, r.Title, r.Cells, r.Of)
			continue
		}
		tag := "also in baseline"
		if r.Change.New {
			tag = "NEW"
		}
		fmt.Fprintf(w, "  %-20s %s: %s\n", r.Variant, tag, *r.Change)
	}
	for _, v := range d.Variants[1:] {
		for _, c := range d.Reports[v.Name] {
			if c.New && c.Excerpt != "" {
				fmt.Fprintf(w, "\n  first %q in %s:\n", c.Title, v.Name)
				for _, l := range firstLines(c.Excerpt, 12) {
					fmt.Fprintf(w, "    %s\n", l)
				}
			}
		}
	}
}

// reportRow is one kernel report as the diff's text and Markdown list
// it: the baseline's own (Change nil; Cells of Of judged cells), or a
// candidate's against the baseline's.
type reportRow struct {
	Variant string
	Title   string
	Cells   int
	Of      int
	Change  *compare.ReportChange
}

// reportRows lists the baseline's kernel reports, then each candidate's
// against it, in variant order.
func reportRows(d *compare.Diff) []reportRow {
	var rows []reportRow
	base := d.Variants[0]
	for _, r := range base.Reports {
		rows = append(rows, reportRow{Variant: base.Name, Title: r.Title, Cells: r.Cells, Of: base.Judged()})
	}
	for _, v := range d.Variants[1:] {
		for _, c := range d.Reports[v.Name] {
			rows = append(rows, reportRow{Variant: v.Name, Title: c.Title, Cells: c.Cells, Of: c.Of, Change: &c})
		}
	}
	return rows
}

// firstLines returns at most n lines of s, with a "..." line when cut.
func firstLines(s string, n int) []string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return lines
}
