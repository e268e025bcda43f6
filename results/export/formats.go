package export

import (
	"context"
	"fmt"
	"io"

	"github.com/kregress/kregress/results"
)

// Formats are what results export writes: json (the document Import
// reads back) or benchfmt (benchstat -col /variant FILE).
var Formats = []string{"json", "benchfmt"}

// WriteFormat writes run and its results in format f, one of Formats.
func WriteFormat(w io.Writer, f string, run *results.Run, rs []*results.Result) error {
	if f == "benchfmt" {
		return WriteBenchfmt(w, run, rs)
	}
	return Write(w, run, rs)
}

// ImportAll imports the export files read (ReadFiles) into store, each
// as a new run, saying each on w; it stops at the first that fails.
func ImportAll(ctx context.Context, store results.Store, read []Checked, w io.Writer) error {
	for _, r := range read {
		run, rs, err := r.Import(ctx, store)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "imported %s as run %d (%d results)\n", r.Path, run.ID, len(rs))
	}
	return nil
}
