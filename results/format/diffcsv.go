package format

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// csvHeader names writeCSV's columns.
var csvHeader = []string{"baseline", "candidate", "metric", "unit", "direction", "base_median", "base_lo", "base_hi", "base_n", "cand_median", "cand_lo", "cand_hi", "cand_n", "delta_pct", "p", "q", "verdict"}

// csvNumber renders a figure in full; a bound benchmath could not
// compute (too few samples) is empty, as in the JSON (null), never
// "-Inf".
func csvNumber(v float64) string {
	if finite(v) == nil {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 8, 64)
}

// csvText makes a cell of text kregress did not write (a variant, metric
// or unit name) safe to open in a spreadsheet: one that starts with
// = + - @ (or a tab or carriage return, which some spreadsheets skip
// before such a character) would be run as a formula; a leading '
// makes it text. Figures are written by csvNumber and stay numbers.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// writeCSV renders one row per candidate and metric.
func writeCSV(w io.Writer, d *compare.Diff) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, row := range csvRows(d) {
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// csvRows are d's rows under csvHeader: one per candidate and metric.
func csvRows(d *compare.Diff) [][]string {
	var rows [][]string
	for _, v := range d.Variants[1:] {
		// An unmeasured candidate has no metric row: one row says so,
		// so that it is not read as a candidate that passed.
		if d.Failures[v.Name].Verdict == verdict.Unmeasured && len(d.Metrics[v.Name]) == 0 {
			rows = append(rows, []string{csvText(d.Baseline), csvText(v.Name), "", "", "", "", "", "", "0", "", "", "", "0", "", "", "", string(verdict.Unmeasured)})
		}
		for _, m := range d.Metrics[v.Name] {
			rows = append(rows, []string{csvText(d.Baseline), csvText(v.Name), csvText(m.Name), csvText(m.Unit), string(m.Direction),
				csvNumber(m.Base.Median), csvNumber(m.Base.Lo), csvNumber(m.Base.Hi), strconv.Itoa(m.Base.N),
				csvNumber(m.Cand.Median), csvNumber(m.Cand.Lo), csvNumber(m.Cand.Hi), strconv.Itoa(m.Cand.N),
				csvNumber(m.DeltaPct), csvNumber(m.P), csvNumber(m.Q), string(m.Verdict)})
		}
	}
	return rows
}
