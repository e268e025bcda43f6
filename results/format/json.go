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

// JSONOr writes v as JSON (IndentedJSON) when asJSON, else text's
// rendering of it: how a listing prints, as a table or, for scripts, its
// JSON twin of the same content.
func JSONOr(w io.Writer, asJSON bool, v any, text func(w io.Writer) error) error {
	if asJSON {
		return IndentedJSON(w, v)
	}
	return text(w)
}
