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
	for _, r := range d.Variants[0].Reports {
		fmt.Fprintf(w, "  %-20s %s (%d of %d cells)\n", d.Variants[0].Name, r.Title, r.Cells, d.Variants[0].Judged())
	}
	for _, v := range d.Variants[1:] {
		for _, c := range d.Reports[v.Name] {
			tag := "also in baseline"
			if c.New {
				tag = "NEW"
			}
			fmt.Fprintf(w, "  %-20s %s: %s\n", v.Name, tag, c)
		}
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

// firstLines returns at most n lines of s, with a "..." line when cut.
func firstLines(s string, n int) []string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return lines
}
