package format

// A bisect's own text report (`kregress bisect`, `bisect show`) and its
// line in `bisect list`, from the state the bisect summarizes
// (bisectreport.Summary).

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// WriteBisectSummary prints a bisect's outcome: the culprit with subject
// and author and "metric A -> B", every tested point with its verdict
// and figures, the skips, and a replayable git bisect log.
func WriteBisectSummary(w io.Writer, s *bisectreport.Summary) {
	fmt.Fprintf(w, "bisect %d: %s from %s to %s (%d points)\n", s.ID, s.Metric, s.Good, s.Bad, s.Points)
	if !s.Started {
		fmt.Fprintf(w, "  stopped before the endpoints were measured: %s\n", errText(s.Err))
		return
	}
	writeBisectEndpoints(w, s)
	writeBisectResult(w, s)
	if s.Merge != "" {
		fmt.Fprintf(w, "merge: %s\n", s.Merge)
	}
	if s.MoreChanges != "" {
		fmt.Fprintf(w, "%s\n", s.MoreChanges)
	}
	for _, m := range s.Metrics {
		fmt.Fprintf(w, "also at the culprit: %s\n", m)
	}
	if s.Speculation != "" {
		fmt.Fprintf(w, "speculative builds: %s\n", s.Speculation)
	}
	fmt.Fprintln(w, "steps:")
	for _, st := range s.Steps {
		if st.Endpoint {
			continue
		}
		fig := ""
		if st.N > 0 {
			fig = fmt.Sprintf(" median %.4g, n=%d, runs %v", st.Median, st.N, st.RunIDs)
		}
		fmt.Fprintf(w, "  %-9s %s:%s\n    %s\n", st.Verdict, bisectTitle(s, st.Point), fig, st.Why)
	}
	if !s.Series {
		writeGitBisectLog(w, s)
	}
}

// WriteBisectShow prints stored bisect b as `bisect show` does: its
// status and start, then its report (WriteBisectSummary). A bisect
// stored as running may be one whose process is gone: the store cannot
// tell.
func WriteBisectShow(w io.Writer, b *results.Bisect, s *bisectreport.Summary) {
	status := string(b.Status)
	if b.Status == results.RunRunning {
		status = "running, or interrupted if no kregress bisect is running now"
	}
	fmt.Fprintf(w, "status: %s (started %s)\n", status, b.StartedAt.Local().Format("2006-01-02 15:04"))
	WriteBisectSummary(w, s)
}

// WriteBisectList prints `bisect list`: a line per stored bisect
// (BisectLine), each summarized by summarize.
func WriteBisectList(w io.Writer, bs []*results.Bisect, summarize func(*results.Bisect) (*bisectreport.Summary, error)) {
	if len(bs) == 0 {
		fmt.Fprintln(w, "no bisects stored")
	}
	for _, b := range bs {
		s, err := summarize(b)
		fmt.Fprintln(w, BisectLine(b, s, err))
	}
}

// errText is an error's text as %v printed it: "<nil>" for none.
func errText(e string) string {
	if e == "" {
		return "<nil>"
	}
	return e
}

// bisectTitle is a point as the report names it: a series patch by its
// number, a commit by its first 12 digits, then its title.
func bisectTitle(s *bisectreport.Summary, p bisectreport.Point) string {
	if s.Series {
		return p.Name + " " + p.Title
	}
	return fmt.Sprintf("%.12s %s", p.Name, p.Title)
}

func writeBisectEndpoints(w io.Writer, s *bisectreport.Summary) {
	e := s.Endpoints
	if s.Crash {
		fmt.Fprintf(w, "endpoints: good %s failed in %d of %d boot(s), bad %s in %d of %d\n", s.Good, e.GoodCrashes, e.GoodBoots, s.Bad, e.BadCrashes, e.BadBoots)
		if e.CrashRate != "" {
			fmt.Fprintf(w, "  a bad kernel's failure rate: %s (the bad endpoint and every step that failed)\n", e.CrashRate)
		}
		return
	}
	// A good median of 0 has no percentage: "~", as for NaN.
	fmt.Fprintf(w, "endpoints: good %s, bad %s: %s %.4g -> %.4g (%s, p=%.4f; %d+%d endpoint boots in all, interleaved with the steps)\n", s.Good, s.Bad, s.Metric,
		e.GoodMedian, e.BadMedian, num.DeltaQuiet((e.BadMedian-e.GoodMedian)/math.Abs(e.GoodMedian)*100), e.P, e.GoodBoots, e.BadBoots)
}

func writeBisectResult(w io.Writer, s *bisectreport.Summary) {
	switch {
	case s.NotReproduced:
		fmt.Fprintln(w, "result: DOES NOT REPRODUCE: good and bad do not differ significantly; nothing was bisected")
	case s.Culprit.Name != "":
		writeBisectCulprit(w, s)
	case len(s.Candidates) > 0:
		fmt.Fprintf(w, "result: INCONCLUSIVE: skipped points leave %d candidates:\n", len(s.Candidates))
		for _, p := range s.Candidates {
			fmt.Fprintf(w, "  %s\n", bisectTitle(s, p))
		}
	case s.Err != "":
		fmt.Fprintf(w, "result: stopped: %s\n", s.Err)
	default:
		fmt.Fprintf(w, "result: not finished: %d step(s) so far; continue with kregress bisect --resume %d\n", s.Measured, s.ID)
	}
}

func writeBisectCulprit(w io.Writer, s *bisectreport.Summary) {
	unit := "commit"
	if s.Series {
		unit = "patch"
	}
	fmt.Fprintf(w, "result: first bad %s: %s\n", unit, bisectTitle(s, s.Culprit))
	for _, st := range s.Steps {
		if st.Name == s.Culprit.Name && st.N > 0 {
			if s.Crash {
				fmt.Fprintf(w, "  at it: the kernel failed in %d of %d boots\n", st.Crashes, st.N)
			} else {
				fmt.Fprintf(w, "  at it: %s %.4g (n=%d; %s)\n", s.Metric, st.Median, st.N, st.Test)
			}
		}
	}
	why := s.ConfidenceWhy
	if why == "" {
		why = fmt.Sprintf("1 - the sum of the %d measured steps' false-call rates", s.Measured)
	}
	fmt.Fprintf(w, "  confidence: %.1f%% (%s)\n", s.Confidence*100, why)
	fmt.Fprintf(w, "  confirmation by revert: %s\n", s.Confirmation)
	if c := s.Confirmation; c != nil && c.Revert != "" {
		fmt.Fprintf(w, "    the revert: %s", c.Revert)
		if f := s.RevertFigs; f != nil {
			fmt.Fprintf(w, "; median %.4g, n=%d, runs %v", f.Median, f.N, f.RunIDs)
		}
		fmt.Fprintln(w)
	}
}

// writeGitBisectLog is the search as `git bisect replay` reads it.
func writeGitBisectLog(w io.Writer, s *bisectreport.Summary) {
	fmt.Fprintln(w, "git bisect log (replay with `git bisect replay FILE`):")
	fmt.Fprintf(w, "git bisect start '%s' '%s'\n", s.Last, s.First)
	for _, st := range s.Steps {
		switch st.Verdict {
		case verdict.Good, verdict.Bad:
			fmt.Fprintf(w, "# %s: [%s] %s\ngit bisect %s %s\n", st.Verdict, st.Name, st.Title, st.Verdict, st.Name)
		case verdict.Skip, verdict.Undecided:
			fmt.Fprintf(w, "# skip: [%s] %s\ngit bisect skip %s\n", st.Name, st.Title, st.Name)
		}
	}
	if s.Culprit.Name != "" {
		fmt.Fprintf(w, "# first bad commit: [%s] %s\n", s.Culprit.Name, s.Culprit.Title)
	}
}

// BisectLine is one bisect in `bisect list`: b as stored, s its summary
// (nil with loadErr when its state does not read).
func BisectLine(b *results.Bisect, s *bisectreport.Summary, loadErr error) string {
	started := b.StartedAt.Local().Format("2006-01-02 15:04")
	if loadErr != nil {
		return fmt.Sprintf("%d\t%s\t%s\t(unreadable: %v)", b.ID, b.Status, started, loadErr)
	}
	what := s.Metric
	if s.Variant != "" {
		what += " (" + s.Variant + ")"
	}
	outcome := "-"
	switch {
	case !s.Started:
	case s.Culprit.Name != "":
		outcome = fmt.Sprintf("culprit %.12s %s; %s", s.Culprit.Name, s.Culprit.Title, s.Confirmation)
	case !s.Reproduced && b.Status == results.RunComplete:
		outcome = "does not reproduce"
	case len(s.Candidates) > 0:
		outcome = strconv.Itoa(len(s.Candidates)) + " candidates (inconclusive)"
	}
	night := ""
	if s.FromNightly {
		night = fmt.Sprintf(" [nightly runs %v]", s.NightRunIDs)
	}
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s %s..%s%s\t%s", b.ID, b.Status, started, s.Experiment, what, shortRef(s.Good), shortRef(s.Bad), night, outcome)
}

// shortRef is a full commit id cut to 12 digits; any other ref as given.
func shortRef(s string) string {
	if len(s) == 40 {
		return s[:12]
	}
	return s
}
