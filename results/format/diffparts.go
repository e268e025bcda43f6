package format

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/kregress/kregress/results/compare"
)

// DiffPart is one comparison of a diff of several (a variant of two
// runs, one host's variants): its title, the diff and its warnings, as
// WriteDiffWarned takes them.
type DiffPart struct {
	Title    string
	Diff     *compare.Diff
	Warnings []string
	// Notes precede a sweep's part in the table (WriteSweepDiff): the
	// run's description and how it was judged.
	Notes []string
}

// jsonPart is a part in a JSON document of several: the part's title and
// its diff in the shape one comparison has on its own.
type jsonPart struct {
	Title string `json:"title"`
	jsonDiff
}

// WriteDiffParts renders parts as one document in f, so that a reader
// of the format reads every comparison from one value. One part is
// WriteDiffWarned's rendering, byte for byte. Several are one JSON
// object whose "parts" list each comparison's object with its "title";
// one CSV with one header whose first column, "comparison", is the
// part's title; one Markdown document with a "## title" section per
// part; and the table and lkp views one after another, each under an
// "== title" line.
func WriteDiffParts(w io.Writer, f Format, parts []DiffPart) error {
	if len(parts) == 1 {
		return WriteDiffWarned(w, parts[0].Diff, f, parts[0].Warnings)
	}
	f, err := diffFormat(f)
	if err != nil {
		return err
	}
	switch f {
	case JSON:
		doc := struct {
			Parts []jsonPart `json:"parts"`
		}{Parts: []jsonPart{}}
		for _, p := range parts {
			doc.Parts = append(doc.Parts, jsonPart{Title: p.Title, jsonDiff: newJSONDiff(p.Diff, p.Warnings)})
		}
		return IndentedJSON(w, doc)
	case CSV:
		cw := csv.NewWriter(w)
		cw.Write(append([]string{"comparison"}, csvHeader...))
		for _, p := range parts {
			for _, row := range csvRows(p.Diff) {
				cw.Write(append([]string{csvText(p.Title)}, row...))
			}
		}
		cw.Flush()
		return cw.Error()
	case Markdown:
		for i, p := range parts {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "## %s\n\n", mdText(p.Title))
			writeMarkdown(w, p.Diff, p.Warnings)
		}
		return nil
	}
	for _, p := range parts {
		fmt.Fprintf(w, "== %s\n", p.Title)
		if err := WriteDiffWarned(w, p.Diff, f, p.Warnings); err != nil {
			return err
		}
	}
	return nil
}

// diffFormat is the diff format f names ("" the table, "md" Markdown),
// or an error when no diff writer has it.
func diffFormat(f Format) (Format, error) {
	switch f {
	case "":
		f = Table
	case "md":
		f = Markdown
	}
	if _, ok := diffWriters[f]; !ok {
		return f, fmt.Errorf("format: no diff format %q", f)
	}
	return f, nil
}
