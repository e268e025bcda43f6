package main

import (
	"encoding/json"
	"io"

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
