package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/reportfile"
	"github.com/kregress/kregress/results/format"
)

// Output vocabulary, the same in every command (issue 28): -f and -o
// (internal/flagkit.Outputs); --json is the shorthand for -f json where a
// command lists or shows. Files are written atomically and never over a
// store or a device (internal/reportfile). The spellings from before
// (nightly --junit FILE, bisect --markdown FILE, ...) are hidden aliases
// of -o FMT=FILE that warn.

// addOutputFlags gives cmd -f (when stdout names formats) and -o.
func addOutputFlags(cmd *cobra.Command, stdout, files []string) *flagkit.Outputs {
	return flagkit.NewOutputs(cmd.Flags(), stdout, files)
}

// emit renders the outputs -f and -o asked for (their Resolve): the
// stdout format ("" when a bare -o FILE took it) to cmd's stdout, then
// every file (writeOutputs).
func emit(cmd *cobra.Command, stdout string, files []flagkit.Output, render func(format string, w io.Writer) error) error {
	if stdout != "" {
		if err := render(stdout, cmd.OutOrStdout()); err != nil {
			return err
		}
	}
	return writeOutputs(cmd.ErrOrStderr(), files, render)
}

// writeOutputs renders every file output through render and writes it
// in place (reportfile.Write); each file is rendered whole first, so a
// failure leaves the file as it was. It says on errw what it wrote.
func writeOutputs(errw io.Writer, files []flagkit.Output, render func(format string, w io.Writer) error) error {
	for _, o := range files {
		var buf bytes.Buffer
		if err := render(o.Format, &buf); err != nil {
			return fmt.Errorf("%s: %w", o.Path, err)
		}
		if err := reportfile.Write(o.Path, buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(errw, "kregress: wrote %s\n", o.Path)
	}
	return nil
}

// jsonFlag gives a command that lists or shows -f table|json and --json,
// its shorthand: the same content as its table, as one indented JSON
// document on stdout, for scripts (field names are the Go structs' json
// tags, stable across releases like the export format's).
func jsonFlag(cmd *cobra.Command) { jsonFlagBeside(cmd, "table", "the table") }

// jsonFlagBeside is jsonFlag for a command whose own output is not a
// table (config prints YAML, version a line): -f human|json, human the
// default (what says what it is in --json's help), and --json.
func jsonFlagBeside(cmd *cobra.Command, human, what string) {
	flagkit.FormatVar(cmd.Flags(), new(string), []string{human, "json"})
	cmd.Flags().Bool("json", false, "print JSON instead of "+what+" (-f json)")
	// --json -f table printed JSON without a word: refuse the pair.
	cmd.MarkFlagsMutuallyExclusive("json", "format")
}

// wantJSON reports whether --json or -f json was given.
func wantJSON(cmd *cobra.Command) bool {
	b, _ := cmd.Flags().GetBool("json")
	f := cmd.Flags().Lookup("format")
	return b || (f != nil && f.Value.String() == "json")
}

// writeJSON writes v as indented JSON and a newline (format.IndentedJSON).
func writeJSON(w io.Writer, v any) error { return format.IndentedJSON(w, v) }
