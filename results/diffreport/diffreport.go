// Package diffreport builds and renders what `kregress diff` shows: the
// comparisons of a run's variants (per host on request) or of two result
// sets variant by variant, the notes each carries (provenance, a fallback
// primary metric, sets measured differently) and the verdicts that decide
// the exit code, in every diff format. What is compared is
// results/diffset's, judging results/compare's, each format's text
// results/format's and results/htmlreport's.
package diffreport

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/diffset"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/htmlreport"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

// Formats are what a diff renders: what results/format writes of a
// diff, and the HTML report.
var Formats = append(format.Names(format.DiffFormats...), string(format.HTML))

// Report is what a diff shows: its comparisons, rendered as one document
// in the format asked for, and the verdicts that decide the exit code.
type Report struct {
	// Title names the whole diff where it has several parts (the HTML
	// page of them).
	Title string
	Parts []Part
	// TableNotes follow the table (what the noise run says could not be
	// seen).
	TableNotes []string
	Verdicts   []*compare.Diff
	// Sweep: the vCPU counts of a run that swept them, a part per count
	// (Part.VCPUs) and each metric shown against the counts; none
	// without a sweep.
	Sweep []int
}

// Part is one comparison: a run's variants, one host's, or one variant
// across two sets.
type Part struct {
	Title  string
	Header bool // a "== title" line above its table (--by-host)
	// Notes precede the table and head the HTML report; Warnings (a
	// set's fallback primary metric, also among Notes) are what the
	// JSON and Markdown renderings carry of them.
	Notes    []string
	Warnings []string
	Diff     *compare.Diff
	Groups   []compare.Group
	// RunID: the stored run whose variants are compared (0: two sets),
	// which the HTML page's unjudged rows name for more boots.
	RunID int64
	// VCPUs: the vCPU count of a sweep's part (Report.Sweep).
	VCPUs int
}

// Render writes r in f as one document, however many comparisons it
// holds (format.WriteDiffParts, htmlreport.RenderParts): the terminal
// table is each part's notes and table one after another, the parts
// headed by their titles with --by-host, then the table's notes.
func (r *Report) Render(w io.Writer, f format.Format) error {
	if len(r.Sweep) > 0 {
		return r.renderSweep(w, f)
	}
	switch f {
	case format.Table:
		return r.renderTable(w)
	case format.HTML:
		ins := make([]htmlreport.Input, len(r.Parts))
		for i, p := range r.Parts {
			ins[i] = htmlreport.Input{Title: p.Title, Notes: p.Notes, Diff: p.Diff, Groups: p.Groups, RunID: p.RunID}
		}
		if len(ins) == 1 {
			ins[0].Title = "kregress " + ins[0].Title
		}
		return htmlreport.RenderParts(w, "kregress "+r.Title, ins)
	}
	parts := make([]format.DiffPart, len(r.Parts))
	for i, p := range r.Parts {
		parts[i] = format.DiffPart{Title: p.Title, Diff: p.Diff, Warnings: p.Warnings}
	}
	return format.WriteDiffParts(w, f, parts)
}

// renderSweep writes a sweep's report: a part per vCPU count, each
// metric against the counts (format.WriteSweepDiff,
// htmlreport.RenderSweep), then the table's notes.
func (r *Report) renderSweep(w io.Writer, f format.Format) error {
	if f == format.HTML {
		ins := make([]htmlreport.Input, len(r.Parts))
		for i, p := range r.Parts {
			ins[i] = htmlreport.Input{Title: p.Title, Notes: p.Notes, Diff: p.Diff, Groups: p.Groups, RunID: p.RunID}
		}
		return htmlreport.RenderSweep(w, "kregress "+r.Title, r.Sweep, ins)
	}
	parts := make([]format.DiffPart, len(r.Parts))
	for i, p := range r.Parts {
		parts[i] = format.DiffPart{Title: p.Title, Diff: p.Diff, Warnings: p.Warnings, Notes: p.Notes}
	}
	if err := format.WriteSweepDiff(w, f, r.Title, r.Sweep, parts); err != nil {
		return err
	}
	if f == format.Table || f == "" {
		for _, line := range r.TableNotes {
			fmt.Fprintln(w, "  note: "+line)
		}
	}
	return nil
}

func (r *Report) renderTable(w io.Writer) error {
	for _, p := range r.Parts {
		if p.Header {
			fmt.Fprintf(w, "== %s\n", p.Title)
		}
		for _, n := range p.Notes {
			fmt.Fprintln(w, n)
		}
		fmt.Fprintln(w)
		if err := format.WriteDiffWarned(w, p.Diff, format.Table, p.Warnings); err != nil {
			return err
		}
	}
	for _, line := range r.TableNotes {
		fmt.Fprintln(w, "  note: "+line)
	}
	return nil
}

// Write writes r in the format named f: Render for a command's -f and
// -o outputs (flagkit.WriteFiles' render).
func (r *Report) Write(f string, w io.Writer) error { return r.Render(w, format.Format(f)) }

// Request is what a diff compares, as its command line says it: kregress
// diff's flags bind straight into it.
type Request struct {
	// Sets: none (the latest run that ended, its variants), one (its
	// variants against its baseline) or two (one against the other).
	Sets []string
	// Judging are the experiment's comparison options
	// (orchestrator/judging's); Alpha and Noise override theirs.
	Judging compare.Options
	Alpha   float64
	// Noise are noise floors per metric in % ("2" or "2%", --noise-floor-pct),
	// over Judging's.
	Noise map[string]string
	// RuleOut, when not 0, is the margin a pass must rule out
	// (--rule-out), over Judging's.
	RuleOut float64
	ByHost  bool // one set: its variants compared within each host
	Force   bool // two sets: compared even when measured differently
	// Store is the store spec the sets are read from; Against, when
	// set, the second of two sets' (Load).
	Store, Against string
	// Gate makes the report's end a CI gate's (--fail-on-regression,
	// Report.Gate).
	Gate bool
}

// Options are what req's sets are compared with: Judging at Alpha, with
// Noise's floors over Judging's (a copy: Judging's stay as they are). A
// bad alpha, floor or option is a usage error.
func (req Request) Options() (compare.Options, error) {
	opts := req.Judging
	opts.Alpha = req.Alpha
	if err := compare.CheckAlpha("--alpha", req.Alpha); err != nil {
		return opts, usage.Wrap(err)
	}
	opts.NoiseFloorPct = maps.Clone(req.Judging.NoiseFloorPct)
	if opts.NoiseFloorPct == nil {
		opts.NoiseFloorPct = map[string]float64{}
	}
	for k, v := range req.Noise {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil {
			return opts, usage.Errorf("--noise-floor-pct %s=%s: not a percentage", k, v)
		}
		opts.NoiseFloorPct[k] = f
	}
	if req.RuleOut != 0 {
		if err := compare.CheckRuleOut("--rule-out", req.RuleOut); err != nil {
			return opts, usage.Wrap(err)
		}
		opts.RuleOut = req.RuleOut
	}
	return opts, usage.Wrap(opts.Validate())
}

// Load is kregress diff's report: req's Options, the stores it names
// opened read-only (the second of two sets from Against when set), and
// Build's report on them. Build's note (which run was taken for no set)
// is said on say as "kregress: note", even when an error follows.
func Load(ctx context.Context, req Request, say io.Writer) (*Report, error) {
	if _, err := req.Options(); err != nil {
		return nil, err
	}
	if err := diffset.CheckFiles(req.Sets); err != nil {
		return nil, err
	}
	here, err := store.OpenFor(ctx, req.Store, store.ReadOnly, nil)
	if err != nil {
		return nil, err
	}
	defer here.Close()
	other := here
	if req.Against != "" && len(req.Sets) == 2 {
		if other, err = store.OpenFor(ctx, req.Against, store.ReadOnly, nil); err != nil {
			return nil, err
		}
		defer other.Close()
	}
	rep, note, err := Build(ctx, here, other, req)
	if note != "" {
		fmt.Fprintln(say, "kregress: "+note)
	}
	return rep, err
}

// Build is the report on req's sets, the second of two read from other.
// note, when not empty, says which run was taken for none (Latest's
// note); it is returned even with an error.
func Build(ctx context.Context, store, other results.Store, req Request) (rep *Report, note string, err error) {
	opts, err := req.Options()
	if err != nil {
		return nil, "", err
	}
	switch len(req.Sets) {
	case 0:
		id, note, err := diffset.Latest(ctx, store)
		if err != nil {
			return nil, note, err
		}
		rep, err := Whole(ctx, store, strconv.FormatInt(id, 10), opts, req.ByHost)
		return rep, note, err
	case 1:
		rep, err = Whole(ctx, store, req.Sets[0], opts, req.ByHost)
	case 2:
		rep, err = Two(ctx, store, other, req.Sets[0], req.Sets[1], opts, req.Force)
	default:
		err = usage.Errorf("diff compares at most two sets, not %d", len(req.Sets))
	}
	return rep, "", err
}

// Gate is how a diff ends (the command's error, its exit code): nil
// without on (--fail-on-regression); with it, compare.Gate's verdict on
// r's comparisons (verdict.End: 3 when something failed, else 9 when a
// primary metric was unjudged), or its error naming a candidate that was
// unmeasured (exit 1).
func (r *Report) Gate(on bool) error {
	if !on {
		return nil
	}
	v, err := compare.Gate(false, r.Verdicts...)
	if err != nil {
		return err
	}
	return verdict.End(v)
}

// Whole compares set arg's variants against its baseline (per host with
// byHost); the verdict is the whole set's.
func Whole(ctx context.Context, store results.Store, arg string, opts compare.Options, byHost bool) (*Report, error) {
	s, err := diffset.Load(ctx, store, arg)
	if err != nil {
		return nil, err
	}
	if s.Variant != "" {
		return nil, usage.Errorf("%s is one variant: give a second set to compare it with", s.Label)
	}
	if len(s.Results) == 0 {
		return nil, fmt.Errorf("%s has no results", s.Label)
	}
	fallbackNotes, warnings := fallback(s, s.Label)
	notes := append([]string{s.Describe()}, fallbackNotes...)
	if n := compare.HostsNote(s.Results); n != "" {
		notes = append(notes, "note: "+n)
	}
	if counts := compare.SweepCounts(s.Results); len(counts) > 0 {
		if byHost {
			return nil, usage.Errorf("%s swept vCPU counts: its variants are compared count by count; --by-host does not split them further", s.Label)
		}
		return wholeSweep(ctx, store, arg, s, notes, warnings, opts)
	}
	blocks := [][]*results.Result{s.Results}
	if byHost {
		blocks = compare.ByHost(s.Results)
	}
	// A stored run can be given more boots (run --resume); a run read
	// from an exported file cannot.
	var runID int64
	if !diffset.IsFile(arg) {
		runID = s.Run.ID
	}
	rep := &Report{Title: fmt.Sprintf("%s: %s, per host", s.Label, s.Run.Experiment)}
	for _, rs := range blocks {
		title := fmt.Sprintf("%s: %s", s.Label, s.Run.Experiment)
		if byHost {
			title += " on host " + rs[0].Provenance.Host
		}
		d, err := compare.Compare(rs, s.Run.Baseline, opts)
		if err != nil {
			return nil, err
		}
		rep.Parts = append(rep.Parts, Part{Title: title, Header: byHost, Notes: notes, Warnings: warnings, Diff: d, Groups: diffset.Groups(d, rs), RunID: runID})
	}
	d := rep.Parts[len(rep.Parts)-1].Diff
	if byHost {
		// The exit code follows the whole set's verdict; the tables
		// per host show where it comes from.
		if d, err = compare.Compare(s.Results, s.Run.Baseline, opts); err != nil {
			return nil, err
		}
	}
	rep.Verdicts = []*compare.Diff{d}
	rep.TableNotes = Unseen(ctx, store, s.Run.Experiment, d)
	if need := d.BootsToJudge(); need > 0 && !diffset.IsFile(arg) {
		rep.TableNotes = append(rep.TableNotes, fmt.Sprintf("more boots would judge what was not judged: kregress run --resume %d --repetitions %d (with the -c and flags run %d was started with)", s.Run.ID, need, s.Run.ID))
	}
	return rep, nil
}

// wholeSweep is Whole of a set whose run swept vCPU counts: a part per
// count comparing the variants at that count alone, every count's
// metrics one false-discovery family (compare.CompareSweep), the
// verdicts each count's.
func wholeSweep(ctx context.Context, store results.Store, arg string, s *diffset.Set, notes, warnings []string, opts compare.Options) (*Report, error) {
	counts, diffs, err := compare.CompareSweep(s.Results, s.Run.Baseline, opts)
	if err != nil {
		return nil, err
	}
	_, blocks := compare.BySweep(s.Results)
	var runID int64
	if !diffset.IsFile(arg) {
		runID = s.Run.ID
	}
	if len(diffs) > 1 {
		notes = append(notes, fmt.Sprintf("note: the %d vCPU counts' metrics are judged as one false-discovery family; each count's variants are compared at that count only", len(diffs)))
	}
	rep := &Report{Title: fmt.Sprintf("%s: %s, vCPU sweep", s.Label, s.Run.Experiment), Verdicts: diffs, Sweep: counts}
	need := 0
	for i, d := range diffs {
		title := fmt.Sprintf("%s: %s at %s", s.Label, s.Run.Experiment, countTitle(counts[i]))
		part := Part{Title: title, Header: true, Warnings: warnings, Diff: d, Groups: diffset.Groups(d, blocks[i]), RunID: runID, VCPUs: counts[i]}
		if i == 0 {
			part.Notes = notes
		}
		rep.Parts = append(rep.Parts, part)
		for _, n := range Unseen(ctx, store, s.Run.Experiment, d) {
			rep.TableNotes = append(rep.TableNotes, countTitle(counts[i])+": "+n)
		}
		need = max(need, d.BootsToJudge())
	}
	if need > 0 && !diffset.IsFile(arg) {
		rep.TableNotes = append(rep.TableNotes, fmt.Sprintf("more boots would judge what was not judged: kregress run --resume %d --repetitions %d (with the -c and flags run %d was started with)", s.Run.ID, need, s.Run.ID))
	}
	return rep, nil
}

// countTitle names a sweep's count in a title ("8 vCPUs"); 0 holds cells
// a sweep's run stored without a count.
func countTitle(n int) string {
	if n == 0 {
		return "no recorded vCPU count"
	}
	return fmt.Sprintf("%d vCPUs", n)
}

// Two compares set argA (from store) with argB (from other) variant by
// variant, or the two variants named, every comparison in one
// false-discovery family. Sets measured differently are refused unless
// force, which prints the differences above the diff.
func Two(ctx context.Context, store, other results.Store, argA, argB string, opts compare.Options, force bool) (*Report, error) {
	a, err := diffset.Load(ctx, store, argA)
	if err != nil {
		return nil, err
	}
	b, err := diffset.Load(ctx, other, argB)
	if err != nil {
		return nil, err
	}
	// A run's fallback is said once, labelled with the run, when both
	// sets are of it (12/stock 12/fast, or 12 12, in one store); else
	// each set's with its label (two stores each have their own run 12).
	sameRun := store == other && runLabel(a) == runLabel(b)
	runA, runB := runLabel(a), runLabel(b)
	if a.Label == b.Label {
		a.Label, b.Label = a.Label+" (A)", b.Label+" (B)"
	}
	if !sameRun {
		runA, runB = a.Label, b.Label
	}
	pairs, err := diffset.Pairs(a, b)
	if err != nil {
		return nil, err
	}
	notesA, warnA := fallback(a, runA)
	notesB, warnB := fallback(b, runB)
	fallbackNotes, warnings := slices.Compact(append(notesA, notesB...)), slices.Compact(append(warnA, warnB...))
	notesOf := make([][]string, len(pairs))
	for i, ms := range diffset.Mismatches(pairs) {
		notesOf[i] = append([]string{a.Describe(), b.Describe()}, fallbackNotes...)
		if len(ms) == 0 {
			continue
		}
		if !force {
			return nil, usage.Errorf("%s and %s were not measured alike, so their numbers do not compare:\n%s\n(--force compares them anyway and prints these differences above the diff)", pairs[i][0].Label, pairs[i][1].Label, strings.Join(ms, "\n"))
		}
		notesOf[i] = append(notesOf[i], "WARNING, compared with --force although measured differently:\n"+strings.Join(ms, "\n"))
	}
	// Every variant's comparison first, then one false-discovery family
	// over all of them (as run judges its candidates), then the output.
	diffs, err := compare.CompareFamily(pairs, opts)
	if err != nil {
		return nil, err
	}
	if len(diffs) > 1 {
		notesOf[0] = append(notesOf[0], fmt.Sprintf("note: the %d variants' metrics are judged as one false-discovery family", len(diffs)))
	}
	rep := &Report{Title: fmt.Sprintf("%s vs %s", b.Label, a.Label), Verdicts: diffs}
	for _, d := range diffs {
		if need := d.BootsToJudge(); need > 0 {
			rep.TableNotes = append(rep.TableNotes, fmt.Sprintf("a diff of stored sets cannot add boots: `kregress run --resume RUN --repetitions %d` adds them to a run, which then judges what was not judged here", need))
			break
		}
	}
	for i, p := range pairs {
		rep.Parts = append(rep.Parts, Part{Title: fmt.Sprintf("%s vs %s", p[1].Label, p[0].Label), Notes: notesOf[i], Warnings: warnings, Diff: diffs[i], Groups: p})
	}
	return rep, nil
}

// PrintRun prints stored run id's diff, judged with opts, as diff's
// table (the run, its seeds, the debug pass) and returns its verdicts
// (one, or one per vCPU count of a sweep): how
// run and seeds show each run as it ends (session.DiffPrinter).
func PrintRun(ctx context.Context, store results.Store, id int64, opts compare.Options, w io.Writer) ([]*compare.Diff, error) {
	rep, err := Whole(ctx, store, strconv.FormatInt(id, 10), opts, false)
	if err != nil {
		return nil, err
	}
	return rep.Verdicts, rep.Render(w, format.Table)
}

// fallback is the warning of a set whose run (labelled run) judged its
// workload's fallback primary metric (the verdict is about that metric),
// if any: as the table's and HTML report's note ("RUN: warning: why", as
// the run that judged it warned) and as the JSON's and Markdown's warning
// ("RUN: why").
func fallback(s *diffset.Set, run string) (notes, warnings []string) {
	if why := results.StoredPrimaryFallback(s.Run.Config); why != "" {
		return []string{run + ": " + progress.Warning(why).String()}, []string{run + ": " + why}
	}
	return nil, nil
}

// runLabel is the label of the run set s is of: its own less the variant
// it was narrowed to (run12/stock, a.json#stock: run12, a.json), the
// fallback being the run's.
func runLabel(s *diffset.Set) string {
	if s.Variant == "" {
		return s.Label
	}
	return s.Label[:len(s.Label)-len(s.Variant)-1]
}
