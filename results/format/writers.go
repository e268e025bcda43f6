package format

import (
	"fmt"
	"io"
)

// writers render one report, R, in each of its formats, F: the one
// dispatch from a format to its writer that the culprit report and the
// night share.
type writers[F ~string, R any] map[F]func(io.Writer, R) error

// write renders r in format f; what names the report in the error for a
// format it does not have.
func (ws writers[F, R]) write(w io.Writer, f F, what string, r R) error {
	write, ok := ws[f]
	if !ok {
		return fmt.Errorf("format: no %s format %q", what, f)
	}
	return write(w, r)
}
