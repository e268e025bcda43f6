package main

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
)

// addReportOutputs gives a bisect command -o FMT=FILE for the culprit
// report (format.CulpritFormats: Markdown, also appended to
// $GITHUB_STEP_SUMMARY when set, JSON, JUnit XML and a plain-text mail
// body; kregress never sends mail), with the old --markdown FILE,
// --junit FILE, --report-mail FILE (and, unless the command's --json is
// the print-JSON switch, --json FILE) as deprecated aliases.
func addReportOutputs(cmd *cobra.Command, jsonAlias bool) *outputFlags {
	o := addOutputFlags(cmd, nil, formatNames(format.CulpritFormats))
	outputAlias(cmd, "markdown", "markdown")
	outputAlias(cmd, "junit", "junit")
	outputAlias(cmd, "report-mail", "mail")
	if jsonAlias {
		outputAlias(cmd, "json", "json")
	}
	return o
}

// writeReports builds bisect o's culprit report and writes it where -o
// asked; with summary, also to $GITHUB_STEP_SUMMARY.
func writeReports(ctx context.Context, errw io.Writer, files []fileOutput, store results.Store, o *bisect.Ended, summary bool) error {
	if len(files) == 0 && (!summary || os.Getenv("GITHUB_STEP_SUMMARY") == "") {
		return nil
	}
	r, err := o.Report(ctx, store)
	if err != nil {
		return err
	}
	err = writeOutputs(errw, files, func(f string, w io.Writer) error { return format.WriteCulprit(w, format.CulpritFormat(f), r) })
	if err != nil || !summary {
		return err
	}
	return format.AppendCulpritStepSummary(r)
}
