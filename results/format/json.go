package format

import (
	"encoding/json"
	"io"
)

// IndentedJSON writes v as every JSON document kregress prints or saves is
// written (reports, --json listings): indented by two spaces, with a
// trailing newline.
func IndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
