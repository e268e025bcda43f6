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

// ImportAll imports the export files at paths into store, each as a new
// run, saying each on w; it stops at the first that fails.
func ImportAll(ctx context.Context, store results.Store, paths []string, w io.Writer) error {
	for _, path := range paths {
		run, rs, err := Import(ctx, store, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "imported %s as run %d (%d results)\n", path, run.ID, len(rs))
	}
	return nil
}
