package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
)

// handoffBisects runs the bisects the night handed off (nightly
// --bisect; session.Handoffs), prints each, and writes its report next
// to the HTML page (when -o html=FILE) and to $GITHUB_STEP_SUMMARY, for
// the night's reports to link. An error here is reported, never the
// night's exit code.
func handoffBisects(ctx context.Context, cmd *cobra.Command, store results.Store, night []*nightreport.Result, htmlPath string, rep progress.Reporter) {
	sess := &session.Session{Store: store, Report: rep}
	sess.Handoffs(ctx, configLoader(cmd), night, func(o *bisect.Ended) string {
		format.WriteBisectSession(cmd.OutOrStdout(), o.Summary())
		var files []fileOutput
		href := ""
		if htmlPath != "" {
			href = fmt.Sprintf("bisect-%d.md", o.ID)
			files = []fileOutput{{format: "markdown", path: filepath.Join(filepath.Dir(htmlPath), href)}}
		}
		if err := writeReports(context.Background(), cmd.ErrOrStderr(), files, store, o, true); err != nil {
			rep("nightly --bisect: bisect %d's report: %v", o.ID, err)
			return ""
		}
		return href
	})
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
				docs, err := bisect.Docs(bs)
				if err != nil {
					return err
				}
				return writeJSON(cmd.OutOrStdout(), docs)
			}
			format.WriteBisectList(cmd.OutOrStdout(), bs, bisect.SummarizeStored)
			return nil
		},
	}
	c.Flags().IntVar(&limit, "limit", 20, "at most this many (0: all)")
	jsonFlag(c)
	return c
}
