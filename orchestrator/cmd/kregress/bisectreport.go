package main

import (
	"context"
	"os"

	"github.com/spf13/pflag"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/results"
)

// reportPaths are where a bisect's culprit report goes.
type reportPaths struct {
	markdown, json, junit, mail string
}

// withJSON adds --json FILE; a command whose --json is the switch that
// prints JSON to stdout (bisect show) passes false.
func (p *reportPaths) addFlags(f *pflag.FlagSet, withJSON bool) {
	f.StringVar(&p.markdown, "markdown", "", "write the culprit report as Markdown here (it is also appended to $GITHUB_STEP_SUMMARY when set)")
	if withJSON {
		f.StringVar(&p.json, "json", "", "write the culprit report as JSON here")
	}
	f.StringVar(&p.junit, "junit", "", "write the culprit report as JUnit XML here (its figures as properties)")
	f.StringVar(&p.mail, "report-mail", "", "write a plain-text mail body of the culprit report here (kregress never sends mail)")
}

// write builds bisect id's report and writes it where asked; with
// summary, also to $GITHUB_STEP_SUMMARY.
func (p *reportPaths) write(ctx context.Context, store results.Store, id int64, spec *bisect.Spec, res *bisect.Result, runErr error, summary bool) (*bisect.CulpritReport, error) {
	if p.markdown == "" && p.json == "" && p.junit == "" && p.mail == "" && (!summary || os.Getenv("GITHUB_STEP_SUMMARY") == "") {
		return nil, nil
	}
	r, err := bisect.BuildReport(ctx, store, id, spec, res, runErr)
	if err != nil {
		return nil, err
	}
	for _, out := range []struct {
		path  string
		write func(*os.File) error
	}{
		{p.markdown, func(f *os.File) error { return r.WriteMarkdown(f) }},
		{p.json, func(f *os.File) error { return r.WriteJSON(f) }},
		{p.junit, func(f *os.File) error { return r.WriteJUnit(f) }},
		{p.mail, func(f *os.File) error { return r.WriteMail(f) }},
	} {
		if out.path == "" {
			continue
		}
		if err := writeFileAtomic(out.path, out.write); err != nil {
			return r, err
		}
	}
	if summary {
		return r, r.AppendStepSummary()
	}
	return r, nil
}
