package format

import (
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
	f, err := diffFormat(f)
	if err != nil {
		return err
	}
	return diffWriters.write(w, f, "diff", diffPage{d, warnings})
}

// diffPage is what a diff's format renders: the diff and its warnings.
type diffPage struct {
	d        *compare.Diff
	warnings []string
}

// diffWriters render the diff, one a format of DiffFormats.
var diffWriters = writers[Format, diffPage]{
	Table:    func(w io.Writer, p diffPage) error { writeTable(w, p.d); return nil },
	Markdown: func(w io.Writer, p diffPage) error { writeMarkdown(w, p.d, p.warnings); return nil },
	JSON:     func(w io.Writer, p diffPage) error { return writeJSON(w, p.d, p.warnings) },
	CSV:      func(w io.Writer, p diffPage) error { return writeCSV(w, p.d) },
	LKP:      func(w io.Writer, p diffPage) error { writeLKP(w, p.d); return nil },
}

// formatNotes say what a format is where its name does not.
var formatNotes = map[string]string{
	string(LKP):  "the 0-day bot's %stddev %change view",
	string(HTML): "a self-contained report with plots",
}

// Describe lists formats for help: their names, each with its note.
func Describe(formats []string) string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f
		if n := formatNotes[f]; n != "" {
			out[i] += " (" + n + ")"
		}
	}
	return strings.Join(out, ", ")
}
