package session

// Nightly --bisect: the bisects a night hands off, each found again in
// the store when it was already searched.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kregress/kregress/internal/lines"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
)

// BisectEnd says how a bisect ended, in a few words.
func BisectEnd(res *bisect.Result, err error) string {
	switch {
	case errors.Is(err, bisect.ErrNotReproduced):
		return "does not reproduce"
	case err != nil:
		return "stopped: " + lines.First(err.Error())
	case res == nil:
		return "not run"
	case res.Culprit == "":
		return fmt.Sprintf("inconclusive: %d candidates", len(res.Range))
	case res.Confirmation == nil:
		return "not confirmed (not checked)"
	}
	return string(res.Confirmation.Outcome)
}

// Handoffs runs the bisects the night handed off (nightly --bisect), one
// per distinct command (Handoff), in turn until ctx is cancelled, shows
// each as `kregress bisect` does (showHandoff) and links it from the
// night's reports (nightly.LinkBisect). A bisect that could not start,
// or whose report could not be written, is reported, never returned:
// the night's exit code is the night's.
func (s *Session) Handoffs(ctx context.Context, load func(experiment string) (*config.Config, error), night []*nightreport.Result, out HandoffOutput) {
	for _, h := range nightreport.Handoffs(night) {
		if ctx.Err() != nil {
			return
		}
		s.Report("=== nightly --bisect: %s", h.Command)
		o, err := s.Handoff(ctx, load, night, h)
		if o == nil {
			s.Report("nightly --bisect: %s: %v", h.Command, err)
			continue
		}
		s.checkAlso(ctx, o, h)
		link := nightly.BisectOutcome{ID: o.ID, Confirmation: BisectEnd(o.Result, o.Err)}
		if o.Result != nil {
			for _, m := range o.Result.Metrics {
				link.Metrics = append(link.Metrics, m.String())
			}
		}
		if res := o.Result; res != nil && res.Culprit != "" {
			link.Culprit = fmt.Sprintf("%.12s %s", res.Culprit, o.Spec.Titles[res.Culprit])
		}
		link.Href = s.showHandoff(o, out)
		nightly.LinkBisect(night, h.Key(), link)
	}
}

// HandoffOutput is where nightly --bisect shows its bisects: each
// one's summary on Stdout and "wrote FILE" on Stderr, and, when the night
// writes an HTML page, its culprit report as Markdown into ReportDir (the
// page's directory) for the page to link.
type HandoffOutput struct {
	Stdout, Stderr io.Writer
	ReportDir      string
}

// showHandoff prints bisect o's summary and writes its culprit report
// (into out.ReportDir as bisect-ID.md, and to $GITHUB_STEP_SUMMARY),
// returning the report's link relative to the night's HTML page ("":
// none, or it could not be written, which is reported).
func (s *Session) showHandoff(o *bisect.Ended, out HandoffOutput) string {
	format.WriteBisectSummary(out.Stdout, o.Summary())
	w := bisect.Output{Stdout: out.Stdout, Stderr: out.Stderr}
	href := ""
	if out.ReportDir != "" {
		href = bisectReport(o.ID)
		w.Files = []flagkit.Output{{Format: string(format.CulpritMarkdown), Path: filepath.Join(out.ReportDir, href)}}
	}
	// Written even when the night was interrupted meanwhile.
	if err := w.WriteReports(context.Background(), s.Store, o, true); err != nil {
		s.Report("nightly --bisect: bisect %d's report: %v", o.ID, err)
		return ""
	}
	return href
}

// Handoff starts the bisect h asks for (nightly --bisect), through the
// experiment's own executor and stored like any bisect, or resumes a
// stored bisect of the same search (a finished one is returned as it
// is), so an interrupted nightly --bisect picks up where it stopped.
// Builds are shared through the kernel cache (keyed by content), so
// bisects of one range build each commit once. load resolves an
// experiment with the command's flags. An error is returned when no
// bisect was stored.
func (s *Session) Handoff(ctx context.Context, load func(experiment string) (*config.Config, error), night []*nightreport.Result, h *nightreport.Handoff) (*bisect.Ended, error) {
	exp := h.Experiment
	cfg, err := load(exp)
	if err != nil {
		return nil, err
	}
	// --kernel.git-tree, if given to nightly, is bound by config.Load.
	spec, err := bisect.CommitRange(ctx, cfg.Kernel.GitTree, h.Good, h.Bad)
	if err != nil {
		return nil, err
	}
	spec.Experiment, spec.Alpha, spec.Reps, spec.Crash = exp, 0.05, bisect.DefaultReps, h.Kind.Crash()
	if spec.Crash {
		spec.Metric = "kernel failures"
	} else {
		spec.Metric = h.Metric
	}
	if err := OnVariant(cfg, spec, h.Variant); err != nil {
		return nil, err
	}
	spec.Origin = originOf(night, h)
	runner, err := s.bisectRunner(cfg, spec, false)
	if err != nil {
		return nil, err
	}
	prev, err := findBisect(ctx, s.Store, spec)
	if err != nil {
		return nil, err
	}
	if prev != 0 {
		s.Report("nightly --bisect: bisect %d searched this already: resuming it (a finished one is shown as it is)", prev)
		b, stored, res, err := runner.Resume(ctx, prev)
		if b == nil {
			return nil, err
		}
		return &bisect.Ended{ID: b.ID, Spec: stored, Result: res, Err: err}, nil
	}
	b, res, err := runner.Start(ctx, spec)
	if b == nil {
		return nil, err
	}
	return &bisect.Ended{ID: b.ID, Spec: spec, Result: res, Err: err}, nil
}

// originOf is the night's case h was handed off from (the first with its
// key).
func originOf(night []*nightreport.Result, h *nightreport.Handoff) *bisectreport.Origin {
	for _, r := range night {
		for _, c := range r.Cases {
			if c.Bisect != nil && c.Bisect.Key() == h.Key() {
				return &bisectreport.Origin{Experiment: r.Experiment, NightRunIDs: r.RunIDs, BaselineRunID: r.BaselineID,
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
		var st bisect.Spec
		if json.Unmarshal([]byte(b.Spec), &st) != nil || len(st.Names) < 2 {
			continue
		}
		if st.GitTree == spec.GitTree && st.Names[0] == spec.Names[0] && st.Names[len(st.Names)-1] == spec.Names[len(spec.Names)-1] &&
			st.Metric == spec.Metric && st.Crash == spec.Crash && st.Variant == spec.Variant && st.Experiment == spec.Experiment && !st.Series {
			return b.ID, nil
		}
	}
	return 0, nil
}

// OnVariant makes every point of spec carry the patches of cfg's variant
// name, copied under the cache (a resumed bisect finds them there).
func OnVariant(cfg *config.Config, spec *bisect.Spec, name string) error {
	c := *cfg
	sel, err := variants.Resolve(&c)
	if err != nil {
		return fmt.Errorf("--variant %s: %w", name, err)
	}
	v, err := sel.Family.Variant(name)
	if err != nil {
		return fmt.Errorf("--variant: %w", err)
	}
	return spec.OnVariant(v, filepath.Join(cfg.CacheDir, "bisect-variant", CacheKey(cfg.Experiment+"/"+name)))
}

// CacheKey is a short, stable name for s (a store, a series and its
// base, an experiment's variant) under the cache directory.
func CacheKey(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:12]
}

// checkAlso judges the hand-off's other regressed metrics at o's culprit
// from the bisect's own boots (bisect.CheckMetrics) and stores them with
// the bisect; a failure is reported, the bisect stands.
func (s *Session) checkAlso(ctx context.Context, o *bisect.Ended, h *nightreport.Handoff) {
	res := o.Result
	if len(h.Also) == 0 || res == nil || res.Culprit == "" || len(res.Metrics) > 0 {
		return
	}
	checks, err := bisect.CheckMetrics(ctx, s.Store, o.Spec, res, h.Also)
	if err != nil {
		s.Report("nightly --bisect: bisect %d: %v", o.ID, err)
	}
	if len(checks) == 0 {
		return
	}
	res.Metrics = checks
	for _, c := range checks {
		s.Report("nightly --bisect: bisect %d: %s", o.ID, c)
	}
	b, err := s.Store.GetBisect(ctx, o.ID)
	if err != nil {
		s.Report("nightly --bisect: bisect %d: keeping its metric checks: %v", o.ID, err)
		return
	}
	data, err := json.Marshal(res)
	if err != nil {
		s.Report("nightly --bisect: bisect %d: keeping its metric checks: %v", o.ID, err)
		return
	}
	b.State = string(data)
	if err := s.Store.SaveBisect(ctx, b); err != nil {
		s.Report("nightly --bisect: bisect %d: keeping its metric checks: %v", o.ID, err)
	}
}
