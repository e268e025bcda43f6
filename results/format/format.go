package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/kregress/kregress/results/compare"
)

// Format names an output format.
type Format string

// The formats of a diff. HTML is the diff's report with plots
// (results/htmlreport): it needs the results themselves, not only the
// diff, so WriteDiff does not render it.
const (
	Table    Format = "table"
	Markdown Format = "markdown"
	JSON     Format = "json"
	CSV      Format = "csv"
	LKP      Format = "lkp"
	HTML     Format = "html"
)

// DiffFormats lists what WriteDiff renders, the terminal table first.
var DiffFormats = []Format{Table, Markdown, JSON, CSV, LKP}

// Names lists formats (a Format, a NightFormat, ...) as the strings a
// flag takes.
func Names[F ~string](fs ...F) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}

// WriteDiff renders the diff d in f ("" is the table, "md" Markdown).
func WriteDiff(w io.Writer, d *compare.Diff, f Format) error {
	return WriteDiffWarned(w, d, f, nil)
}

// WriteDiffWarned is WriteDiff with warnings: lines that change what the
// verdict is about (a stored run judged its workload's fallback primary
// metric). JSON carries them in its "warnings" field, Markdown as a note
// under its heading; the table and CSV do not (the table's caller prints
// them among the notes above it, CSV has rows only).
func WriteDiffWarned(w io.Writer, d *compare.Diff, f Format, warnings []string) error {
	switch f {
	case "", Table:
		writeTable(w, d)
		return nil
	case Markdown, "md":
		writeMarkdown(w, d, warnings)
		return nil
	case JSON:
		return writeJSON(w, d, warnings)
	case CSV:
		return writeCSV(w, d)
	case LKP:
		writeLKP(w, d)
		return nil
	}
	return fmt.Errorf("unknown format %q (known: %s, html)", f, strings.Join(Names(DiffFormats...), ", "))
}
