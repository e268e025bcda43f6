package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
)

// handoffBisects runs the bisects the night handed off (nightly
// --bisect), one per distinct command (session.Handoff), prints each, and
// links it from the night's reports; a report per bisect goes next to the
// HTML page (when -o html=FILE) and to $GITHUB_STEP_SUMMARY. An error
// here is reported, never the night's exit code.
func handoffBisects(ctx context.Context, cmd *cobra.Command, store results.Store, night []*nightreport.Result, htmlPath string, rep progress.Reporter) {
	sess := &session.Session{Store: store, Report: rep}
	load := func(e string) (*config.Config, error) {
		cfg, _, err := config.Load(e, cmd.Flags())
		return cfg, err
	}
	for _, h := range nightreport.Handoffs(night) {
		if ctx.Err() != nil {
			return
		}
		rep("=== nightly --bisect: %s", h.Command)
		id, spec, res, err := sess.Handoff(ctx, load, night, h)
		if id == 0 {
			rep("nightly --bisect: %s: %v", h.Command, err)
			continue
		}
		format.WriteBisectSession(cmd.OutOrStdout(), bisect.Summarize(id, spec, res, err))
		o := nightly.BisectOutcome{ID: id, Confirmation: session.BisectEnd(res, err)}
		if res != nil && res.Culprit != "" {
			o.Culprit = fmt.Sprintf("%.12s %s", res.Culprit, spec.Titles[res.Culprit])
		}
		var files []fileOutput
		if htmlPath != "" {
			name := fmt.Sprintf("bisect-%d.md", id)
			files, o.Href = []fileOutput{{format: "markdown", path: filepath.Join(filepath.Dir(htmlPath), name)}}, name
		}
		if _, rerr := writeReports(context.Background(), cmd.ErrOrStderr(), files, store, id, spec, res, err, true); rerr != nil {
			rep("nightly --bisect: bisect %d's report: %v", id, rerr)
			o.Href = ""
		}
		nightly.LinkBisect(night, h.Key(), o)
	}
}

// newBisectList is `kregress bisect list`.
func newBisectList() *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:     "list",
		Short:   "list stored bisects, newest first: what they searched, the culprit and its confirmation",
		Example: `  kregress bisect list`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, store, err := loadReadOnly(cmd)
			if err != nil {
				return err
			}
			defer store.Close()
			bs, err := store.ListBisects(cmd.Context(), limit)
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				list := []bisectDoc{}
				for _, b := range bs {
					spec, res, err := bisect.Load(b)
					if err != nil {
						return fmt.Errorf("bisect %d: %w", b.ID, err)
					}
					list = append(list, newBisectDoc(b, spec, res))
				}
				return writeJSON(cmd.OutOrStdout(), list)
			}
			if len(bs) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no bisects stored")
			}
			for _, b := range bs {
				fmt.Fprintln(cmd.OutOrStdout(), bisectLine(b))
			}
			return nil
		},
	}
	c.Flags().IntVar(&limit, "limit", 20, "at most this many (0: all)")
	jsonFlag(c)
	return c
}

// bisectDoc is a stored bisect as bisect list --json and bisect show
// --json print it (show adds the culprit report).
type bisectDoc struct {
	ID         int64                `json:"id"`
	Status     string               `json:"status"`
	StartedAt  time.Time            `json:"started_at"`
	FinishedAt *time.Time           `json:"finished_at,omitempty"`
	Spec       *bisect.Spec         `json:"spec"`
	Result     *bisect.Result       `json:"result"`
	Report     *bisectreport.Report `json:"report,omitempty"`
	// ReportError says why show could not build the report (the git
	// tree it reads the culprit from is gone, say).
	ReportError string `json:"report_error,omitempty"`
}

func newBisectDoc(b *results.Bisect, spec *bisect.Spec, res *bisect.Result) bisectDoc {
	d := bisectDoc{ID: b.ID, Status: string(b.Status), StartedAt: b.StartedAt, Spec: spec, Result: res}
	if !b.FinishedAt.IsZero() {
		d.FinishedAt = &b.FinishedAt
	}
	return d
}

// bisectLine is one bisect in a listing.
func bisectLine(b *results.Bisect) string {
	spec, res, err := bisect.Load(b)
	if err != nil {
		return format.BisectLine(b, nil, err)
	}
	return format.BisectLine(b, bisect.Summarize(b.ID, spec, res, nil), nil)
}
