package bisect

// What the bisect commands print and write: `bisect list` and `bisect
// show` (text or their JSON twin), the culprit report's files and
// $GITHUB_STEP_SUMMARY, and `bisect step`'s one line and exit code. The
// wording is results/format's; this file decides what is written where.

import (
	"context"
	"io"
	"os"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
)

// Output is where a bisect command writes: its text (or, with JSON, its
// document) on Stdout, the culprit report into Files (-o FMT=FILE,
// format.CulpritFormats), and on Stderr which files it wrote and why a
// step could not measure.
type Output struct {
	Stdout, Stderr io.Writer
	JSON           bool
	Files          []flagkit.Output
}

// WriteReports builds o's culprit report and writes it into out.Files
// and, with summary, appends its Markdown to $GITHUB_STEP_SUMMARY when
// GitHub Actions set it. With nowhere to write it the report is not
// built: building it reads the culprit's commit from the git tree.
func (out Output) WriteReports(ctx context.Context, store results.Store, o *Ended, summary bool) error {
	if len(out.Files) == 0 && (!summary || os.Getenv("GITHUB_STEP_SUMMARY") == "") {
		return nil
	}
	r, err := o.Report(ctx, store)
	if err != nil {
		return err
	}
	err = flagkit.WriteFiles(out.Stderr, out.Files, func(f string, w io.Writer) error { return format.WriteCulprit(w, format.CulpritFormat(f), r) })
	if err != nil || !summary {
		return err
	}
	return format.AppendCulpritStepSummary(r)
}

// List is `bisect list`: the newest limit stored bisects (0: all), a
// line each (format.WriteBisectList; a bisect that does not read says
// so on its line), or with out.JSON their documents (Docs; one that does
// not read is an error).
func List(ctx context.Context, store results.Store, limit int, out Output) error {
	bs, err := store.ListBisects(ctx, limit)
	if err != nil {
		return err
	}
	if !out.JSON {
		format.WriteBisectList(out.Stdout, bs, SummarizeStored)
		return nil
	}
	docs, err := Docs(bs)
	if err != nil {
		return err
	}
	return format.IndentedJSON(out.Stdout, docs)
}

// Show is `bisect show ID`: stored bisect id's status and report
// (format.WriteBisectShow) with its culprit report written into
// out.Files (never to $GITHUB_STEP_SUMMARY: showing is not a CI step's
// result), or with out.JSON its document with the culprit report inside
// (Stored.Doc).
func Show(ctx context.Context, store results.Store, id int64, out Output) error {
	s, err := LoadStored(ctx, store, id)
	if err != nil {
		return err
	}
	if out.JSON {
		return format.IndentedJSON(out.Stdout, s.Doc(ctx, store))
	}
	format.WriteBisectShow(out.Stdout, s.Bisect, s.Summary())
	return out.WriteReports(ctx, store, s.Reported(), false)
}
