package main

import (
	"encoding/json"
	"io"
	"math"

	"github.com/spf13/cobra"
)

// jsonFlag adds --json to a command that lists or shows: the same
// content as its table, as one indented JSON document on stdout, for
// scripts (field names are the Go structs' json tags, stable across
// releases like the export format's).
func jsonFlag(cmd *cobra.Command) *bool {
	return cmd.Flags().Bool("json", false, "print JSON instead of the table")
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// finite is v, or nil (JSON null) for NaN and the infinities, which
// JSON cannot carry: "not measured" and "never" respectively.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// wantJSON reports whether --json was given.
func wantJSON(cmd *cobra.Command) bool {
	b, _ := cmd.Flags().GetBool("json")
	return b
}
