package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/diffset"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/htmlreport"
)

// diffFormats are what diff renders, on stdout (-f) and into files (-o):
// what results/format writes of a diff, and the HTML report.
var diffFormats = append(format.Names(format.DiffFormats...), string(format.HTML))

// diffFlags are diff's own flags.
type diffFlags struct {
	alpha                           float64
	against                         string
	noise                           map[string]string
	failOnRegression, force, byHost bool
	out                             *outputFlags
}

func newDiff() *cobra.Command {
	var fl diffFlags
	cmd := &cobra.Command{
		Use: "diff [SET [SET]]",
		Example: `  kregress diff                           # the latest complete run
  kregress diff 12 13 -f markdown
  kregress diff 12 -o html=report.html -o csv=report.csv   # the table, and two files
  kregress diff 12 --by-host              # a cluster run, variants compared within each host`,
		Short: "compare result sets: the variants of a run, a variant across runs, stores or exported files",
		Long: `diff compares result sets with the statistics benchstat uses: per metric the
median with its 95% confidence interval, the % change, the Mann-Whitney U
p-value and n, labelled improvement or regression by the metric's direction
("~" when not significant at --alpha, or within the metric's noise floor),
then which code held the irqs-off worst section in each set.

A SET is RUN (a run id), RUN/VARIANT, FILE.json (from "results export") or
FILE.json#VARIANT.

  diff                 the latest run's variants against its baseline
  diff 12              run 12's variants against its baseline
  diff 12 13           each variant present in both runs: 12's against 13's
  diff 12/stock 13/per-cpu-relock
  diff 12 12 --against postgres://team@db/kregress   run 12 here vs there
  diff a.json#stock b.json#stock

Two sets from different runs must have been measured alike: the same
accelerator, vCPUs (online and possible), memory, kernel config, kernel
command line, workload and its arguments, QEMU version and host CPU.
Otherwise diff names the differences and stops (exit 2) unless --force.

When the sample sizes cannot reach alpha (fewer than 4 runs per side at
0.05; more in a larger family) a metric is "unjudged", never "~".
Formats: table, markdown, json, csv, lkp (the 0-day bot's %stddev %change
view), html (a self-contained report with plots). -f chooses what goes to
stdout; -o FMT=FILE (repeatable) writes more formats to files, and a bare
-o FILE writes -f's format there instead of stdout.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return diffCommand(cmd, args, &fl) },
	}
	f := cmd.Flags()
	f.Float64Var(&fl.alpha, "alpha", 0.05, "false discovery rate over the metrics judged (Benjamini-Hochberg q of the Mann-Whitney U p-values), in (0, 1)")
	fl.out = addOutputFlags(cmd, diffFormats, diffFormats)
	f.StringVar(&fl.against, "against", "", "read the second SET from this store (SQLite file or postgres:// DSN)")
	f.StringToStringVar(&fl.noise, "noise", nil, "noise floor per metric in %, e.g. --noise reads_per_sec=2")
	f.BoolVar(&fl.byHost, "by-host", false, "when a run's cells ran on several hosts (a cluster executor), compare the variants within each host, one table per host")
	f.BoolVar(&fl.force, "force", false, "compare two sets even when they were measured differently (accelerator, vCPUs, memory, kernel config, command line, workload, QEMU, host CPU); the differences are printed")
	f.BoolVar(&fl.failOnRegression, "fail-on-regression", false, "exit 3 when a candidate fails (crash, timeout, boot failure) more often than the baseline, a metric regresses significantly, its kernel prints a report (WARNING, BUG, lockdep, stall) the baseline's does not, or its selftest outcomes get worse; else exit 1 when a candidate was unmeasured (every cell an infrastructure error); else exit 9 when a primary metric was unjudged")
	return cmd
}

// diffCommand is kregress diff: resolve the sets, judge them, render
// every output asked for, map the verdict to the exit code.
func diffCommand(cmd *cobra.Command, args []string, fl *diffFlags) error {
	cfg, err := load(cmd)
	if err != nil {
		return err
	}
	opts, err := diffOptions(cfg.NoiseFloorPct, judging.Options(cfg, fl.alpha, judging.AnyWorkload), fl)
	if err != nil {
		return err
	}
	stdout, files, err := fl.out.resolve()
	if err != nil {
		return err
	}
	store, err := openReadOnly(cfg.StoreSpec())
	if err != nil {
		return err
	}
	defer store.Close()
	var rep *diffReport
	switch len(args) {
	case 0:
		id, note, err := diffset.Latest(cmd.Context(), store)
		if err != nil {
			return err
		}
		if note != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), "kregress: "+note)
		}
		rep, err = wholeSetReport(cmd.Context(), store, strconv.FormatInt(id, 10), opts, fl.byHost)
		if err != nil {
			return err
		}
	case 1:
		if rep, err = wholeSetReport(cmd.Context(), store, args[0], opts, fl.byHost); err != nil {
			return err
		}
	case 2:
		if rep, err = twoSetReport(cmd.Context(), store, args, opts, fl); err != nil {
			return err
		}
	}
	render := func(f string, w io.Writer) error { return rep.render(w, format.Format(f)) }
	if stdout != "" {
		if err := render(stdout, cmd.OutOrStdout()); err != nil {
			return err
		}
	}
	if err := writeOutputs(cmd.ErrOrStderr(), files, render); err != nil {
		return err
	}
	if !fl.failOnRegression {
		return nil
	}
	return verdictExit(false, rep.verdicts...)
}

// diffOptions are the experiment's comparison options with --alpha and
// --noise applied.
func diffOptions(floors map[string]float64, opts compare.Options, fl *diffFlags) (compare.Options, error) {
	if err := compare.CheckAlpha("--alpha", fl.alpha); err != nil {
		return opts, usage.Wrap(err)
	}
	opts.NoiseFloorPct = map[string]float64{}
	for k, v := range floors {
		opts.NoiseFloorPct[k] = v
	}
	for k, v := range fl.noise {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil {
			return opts, usage.Errorf("--noise %s=%s: not a percentage", k, v)
		}
		opts.NoiseFloorPct[k] = f
	}
	return opts, usage.Wrap(opts.Validate())
}

// diffReport is what a diff shows: its comparisons, each rendered in the
// format asked for, and the verdicts that decide the exit code.
type diffReport struct {
	parts []diffPart
	// tableNotes follow the table (what the noise run says could not be
	// seen).
	tableNotes []string
	verdicts   []*compare.Diff
}

// diffPart is one comparison: a run's variants, one host's, or one
// variant across two sets.
type diffPart struct {
	title  string
	header bool // a "== title" line above its table (--by-host)
	notes  []string
	d      *compare.Diff
	groups []compare.Group
}

func (r *diffReport) render(w io.Writer, f format.Format) error {
	for _, p := range r.parts {
		if p.header && f == format.Table {
			fmt.Fprintf(w, "== %s\n", p.title)
		}
		if err := writeDiff(w, f, p.title, p.notes, p.d, p.groups); err != nil {
			return err
		}
	}
	if f == format.Table {
		for _, line := range r.tableNotes {
			fmt.Fprintln(w, "  note: "+line)
		}
	}
	return nil
}

// wholeSetReport compares a whole set's variants against its baseline
// (per host with byHost); the verdict is the whole set's.
func wholeSetReport(ctx context.Context, store results.Store, arg string, opts compare.Options, byHost bool) (*diffReport, error) {
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
	notes := append([]string{s.Describe()}, fallbackNote(s)...)
	if n := compare.HostsNote(s.Results); n != "" {
		notes = append(notes, "note: "+n)
	}
	blocks := [][]*results.Result{s.Results}
	if byHost {
		blocks = compare.ByHost(s.Results)
	}
	rep := &diffReport{}
	for _, rs := range blocks {
		title := fmt.Sprintf("%s: %s", s.Label, s.Run.Experiment)
		if byHost {
			title += " on host " + rs[0].Provenance.Host
		}
		d, err := compare.Compare(rs, s.Run.Baseline, opts)
		if err != nil {
			return nil, err
		}
		rep.parts = append(rep.parts, diffPart{title: title, header: byHost, notes: notes, d: d, groups: diffset.Groups(d, rs)})
	}
	d := rep.parts[len(rep.parts)-1].d
	if byHost {
		// The exit code follows the whole set's verdict; the tables
		// per host show where it comes from.
		if d, err = compare.Compare(s.Results, s.Run.Baseline, opts); err != nil {
			return nil, err
		}
	}
	rep.verdicts = []*compare.Diff{d}
	rep.tableNotes = sensitivity(ctx, store, s.Run.Experiment, d)
	return rep, nil
}

// twoSetReport compares two sets variant by variant (or the two variants
// named), every comparison in one false-discovery family.
func twoSetReport(ctx context.Context, store results.Store, args []string, opts compare.Options, fl *diffFlags) (*diffReport, error) {
	a, err := diffset.Load(ctx, store, args[0])
	if err != nil {
		return nil, err
	}
	other := store
	if fl.against != "" {
		s, err := openReadOnly(fl.against)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		other = s
	}
	b, err := diffset.Load(ctx, other, args[1])
	if err != nil {
		return nil, err
	}
	if a.Label == b.Label {
		a.Label, b.Label = a.Label+" (A)", b.Label+" (B)"
	}
	pairs, err := diffset.Pairs(a, b)
	if err != nil {
		return nil, err
	}
	notesOf := make([][]string, len(pairs))
	for i, ms := range diffset.Mismatches(pairs) {
		notesOf[i] = append([]string{a.Describe(), b.Describe()}, append(fallbackNote(a), fallbackNote(b)...)...)
		if len(ms) == 0 {
			continue
		}
		if !fl.force {
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
	rep := &diffReport{verdicts: diffs}
	for i, p := range pairs {
		rep.parts = append(rep.parts, diffPart{title: fmt.Sprintf("%s vs %s", p[1].Label, p[0].Label), notes: notesOf[i], d: diffs[i], groups: p})
	}
	return rep, nil
}

// fallbackNote is the warning of a set whose run judged its workload's
// fallback primary metric (the verdict is about that metric), if any.
func fallbackNote(s *diffset.Set) []string {
	if why := pipeline.StoredPrimaryFallback(s.Run.Config); why != "" {
		return []string{fmt.Sprintf("%s: %s", s.Label, pipeline.Warning(why))}
	}
	return nil
}

// diffOneRun prints run id's diff as a table (run, seeds, the debug
// pass) and returns its verdict.
func diffOneRun(ctx context.Context, store results.Store, id int64, opts compare.Options, w io.Writer) (*compare.Diff, error) {
	rep, err := wholeSetReport(ctx, store, strconv.FormatInt(id, 10), opts, false)
	if err != nil {
		return nil, err
	}
	return rep.verdicts[0], rep.render(w, format.Table)
}

func writeDiff(w io.Writer, f format.Format, title string, notes []string, d *compare.Diff, groups []compare.Group) error {
	switch f {
	case format.HTML:
		return htmlreport.Render(w, htmlreport.Input{Title: "kregress " + title, Notes: notes, Diff: d, Groups: groups})
	case format.Table:
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
		fmt.Fprintln(w)
	}
	return format.WriteDiff(w, d, f)
}
