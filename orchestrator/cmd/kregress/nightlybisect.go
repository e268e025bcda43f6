package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/results"
)

// handoffBisects runs the bisects the night handed off (nightly
// --bisect), one per distinct command, each through the experiment's own
// executor and stored like any bisect: a bisect of the same search that
// is already stored is resumed (or, finished, reused), so an interrupted
// nightly --bisect --resume picks up where it stopped. Builds are shared
// through the kernel cache (keyed by content), so bisects of one range
// build each commit once. Each outcome is linked from the night's
// reports; a report per bisect goes next to the HTML page (when --html)
// and to $GITHUB_STEP_SUMMARY. An error here is reported, never the
// night's exit code.
func handoffBisects(ctx context.Context, cmd *cobra.Command, store results.Store, night []*nightly.Result, htmlPath string, rep pipeline.Reporter) {
	for _, h := range nightly.Handoffs(night) {
		if ctx.Err() != nil {
			return
		}
		rep("=== nightly --bisect: %s", h.Command)
		id, spec, res, err := runHandoff(ctx, cmd, store, night, h, rep)
		if id == 0 {
			rep("nightly --bisect: %s: %v", h.Command, err)
			continue
		}
		bisect.WriteReport(os.Stdout, id, spec, res, err)
		o := nightly.BisectOutcome{ID: id, Confirmation: bisectEnd(res, err)}
		if res != nil && res.Culprit != "" {
			o.Culprit = fmt.Sprintf("%.12s %s", res.Culprit, spec.Titles[res.Culprit])
		}
		paths := reportPaths{}
		if htmlPath != "" {
			name := fmt.Sprintf("bisect-%d.md", id)
			paths.markdown, o.Href = filepath.Join(filepath.Dir(htmlPath), name), name
		}
		if _, rerr := paths.write(context.Background(), store, id, spec, res, err, true); rerr != nil {
			rep("nightly --bisect: bisect %d's report: %v", id, rerr)
			o.Href = ""
		}
		nightly.LinkBisect(night, h.Key(), o)
	}
}

// bisectEnd says how a bisect ended, in a few words.
func bisectEnd(res *bisect.Result, err error) string {
	switch {
	case errors.Is(err, bisect.ErrNotReproduced):
		return "does not reproduce"
	case err != nil:
		return "stopped: " + firstLineOf(err.Error())
	case res == nil:
		return "not run"
	case res.Culprit == "":
		return fmt.Sprintf("inconclusive: %d candidates", len(res.Range))
	case res.Confirmation == nil:
		return "not confirmed (not checked)"
	}
	return string(res.Confirmation.Outcome)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// runHandoff starts (or resumes) the bisect h asks for.
func runHandoff(ctx context.Context, cmd *cobra.Command, store results.Store, night []*nightly.Result, h *nightly.Handoff, rep pipeline.Reporter) (int64, *bisect.Spec, *bisect.Result, error) {
	exp := h.Experiment
	cfg, _, err := config.Load(exp, cmd.Flags())
	if err != nil {
		return 0, nil, nil, err
	}
	// --kernel.git-tree, if given to nightly, is bound by config.Load.
	spec, err := bisect.CommitRange(ctx, cfg.Kernel.GitTree, h.Good, h.Bad)
	if err != nil {
		return 0, nil, nil, err
	}
	spec.Experiment, spec.Alpha, spec.Reps, spec.Crash = exp, 0.05, bisect.DefaultReps, h.Kind.Crash()
	if spec.Crash {
		spec.Metric = "kernel failures"
	} else {
		spec.Metric = h.Metric
	}
	if err := onVariant(cfg, spec, h.Variant); err != nil {
		return 0, nil, nil, err
	}
	spec.Origin = originOf(night, h)
	prober := &bisect.PipelineProber{Cfg: cfg, Points: spec.Points, Metric: spec.Metric, Crash: spec.Crash, Store: store, Report: rep}
	speculate, err := bisect.SpeculationFor(cfg, runtime.NumCPU())
	if err != nil {
		return 0, nil, nil, err
	}
	sess := &bisect.Session{Store: store, Prober: prober, Report: rep, Speculate: speculate}
	prev, err := findBisect(ctx, store, spec)
	if err != nil {
		return 0, nil, nil, err
	}
	if prev != 0 {
		rep("nightly --bisect: bisect %d searched this already: resuming it (a finished one is shown as it is)", prev)
		b, s, res, err := sess.Resume(ctx, prev)
		if b == nil {
			return 0, nil, nil, err
		}
		return b.ID, s, res, err
	}
	b, res, err := sess.Start(ctx, spec)
	if b == nil {
		return 0, nil, nil, err
	}
	return b.ID, spec, res, err
}

// originOf is the night's case h was handed off from (the first with its
// key).
func originOf(night []*nightly.Result, h *nightly.Handoff) *bisect.Origin {
	for _, r := range night {
		for _, c := range r.Cases {
			if c.Bisect != nil && c.Bisect.Key() == h.Key() {
				return &bisect.Origin{Experiment: r.Experiment, NightRunIDs: r.RunIDs, BaselineRunID: r.BaselineID,
					Regression: c.Variant + " " + c.Name + ": " + c.Message, Change: c.Metric}
			}
		}
	}
	return nil
}

// findBisect is the newest stored bisect of the same search as spec (0:
// none).
func findBisect(ctx context.Context, store results.Store, spec *bisect.Spec) (int64, error) {
	bs, err := store.ListBisects(ctx, 200)
	if err != nil {
		return 0, err
	}
	for _, b := range bs {
		var s bisect.Spec
		if json.Unmarshal([]byte(b.Spec), &s) != nil || len(s.Names) < 2 {
			continue
		}
		if s.GitTree == spec.GitTree && s.Names[0] == spec.Names[0] && s.Names[len(s.Names)-1] == spec.Names[len(spec.Names)-1] &&
			s.Metric == spec.Metric && s.Crash == spec.Crash && s.Variant == spec.Variant && s.Experiment == spec.Experiment && !s.Series {
			return b.ID, nil
		}
	}
	return 0, nil
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
				return writeJSON(os.Stdout, list)
			}
			if len(bs) == 0 {
				fmt.Println("no bisects stored")
			}
			for _, b := range bs {
				fmt.Println(bisectLine(b))
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
	ID         int64                 `json:"id"`
	Status     string                `json:"status"`
	StartedAt  time.Time             `json:"started_at"`
	FinishedAt *time.Time            `json:"finished_at,omitempty"`
	Spec       *bisect.Spec          `json:"spec"`
	Result     *bisect.Result        `json:"result"`
	Report     *bisect.CulpritReport `json:"report,omitempty"`
	// ReportError says why show could not build the report (the git
	// tree it reads the culprit from is gone, say).
	ReportError string `json:"report_error,omitempty"`
}

func newBisectDoc(b *results.Bisect, spec *bisect.Spec, res *bisect.Result) bisectDoc {
	d := bisectDoc{ID: b.ID, Status: b.Status, StartedAt: b.StartedAt, Spec: spec, Result: res}
	if !b.FinishedAt.IsZero() {
		d.FinishedAt = &b.FinishedAt
	}
	return d
}

// bisectLine is one bisect in a listing.
func bisectLine(b *results.Bisect) string {
	spec, res, err := bisect.Load(b)
	if err != nil {
		return fmt.Sprintf("%d\t%s\t%s\t(unreadable: %v)", b.ID, b.Status, b.StartedAt.Local().Format("2006-01-02 15:04"), err)
	}
	what := spec.Metric
	if spec.Variant != "" {
		what += " (" + spec.Variant + ")"
	}
	outcome := "-"
	switch {
	case res == nil:
	case res.Culprit != "":
		outcome = fmt.Sprintf("culprit %.12s %s; %s", res.Culprit, spec.Titles[res.Culprit], res.Confirmation)
	case !res.Reproduced && b.Status == results.RunComplete:
		outcome = "does not reproduce"
	case len(res.Range) > 0:
		outcome = strconv.Itoa(len(res.Range)) + " candidates (inconclusive)"
	}
	night := ""
	if spec.Origin != nil {
		night = fmt.Sprintf(" [nightly runs %v]", spec.Origin.NightRunIDs)
	}
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s %s..%s%s\t%s", b.ID, b.Status, b.StartedAt.Local().Format("2006-01-02 15:04"), spec.Experiment, what, shortRef(spec.Good), shortRef(spec.Bad), night, outcome)
}

func shortRef(s string) string {
	if len(s) == 40 {
		return s[:12]
	}
	return s
}
