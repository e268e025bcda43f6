package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/export"
	"github.com/kregress/kregress/results/htmlreport"
)

// set is one side of a diff: a run (from a store or an export file),
// optionally narrowed to one variant.
type set struct {
	label   string
	run     *results.Run
	results []*results.Result
	variant string
}

// parseSet reads "RUN", "RUN/VARIANT", "FILE.json" or "FILE.json#VARIANT".
func loadSet(ctx context.Context, store results.Store, arg string) (*set, error) {
	if path, variant, _ := strings.Cut(arg, "#"); strings.HasSuffix(path, ".json") {
		f, err := export.ReadFile(path)
		if err != nil {
			return nil, err
		}
		run, rs := f.Runs()
		return narrow(&set{label: filepath.Base(path), run: run, results: rs}, variant)
	}
	idText, variant, _ := strings.Cut(arg, "/")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return nil, usageError{fmt.Errorf("%q is neither a run id (see `kregress results list`), RUN/VARIANT, nor an exported FILE.json", arg)}
	}
	run, err := store.GetRun(ctx, id)
	if err != nil {
		return nil, err
	}
	rs, err := store.Results(ctx, id)
	if err != nil {
		return nil, err
	}
	return narrow(&set{label: fmt.Sprintf("run%d", id), run: run, results: rs}, variant)
}

func narrow(s *set, variant string) (*set, error) {
	if variant == "" {
		return s, nil
	}
	var keep []*results.Result
	for _, r := range s.results {
		if r.Variant == variant {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("%s has no results for variant %q (it has: %s)", s.label, variant, strings.Join(results.VariantNames(s.results), ", "))
	}
	s.results, s.variant = keep, variant
	s.label += "/" + variant
	return s, nil
}

func newDiff() *cobra.Command {
	var (
		alpha            float64
		format, output   string
		against          string
		noise            map[string]string
		failOnRegression bool
		force            bool
	)
	cmd := &cobra.Command{
		Use: "diff [SET [SET]]",
		Example: `  kregress diff                           # the latest complete run
  kregress diff 12 13 -f markdown
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
  diff a.json b.json#stock

Two sets from different runs must have been measured alike: the same
accelerator, vCPUs (online and possible), memory, kernel config, kernel
command line, workload and its arguments, QEMU version and host CPU.
Otherwise diff names the differences and stops (exit 2) unless --force.

When the sample sizes cannot reach alpha (fewer than 4 runs per side at
0.05; more in a larger family) a metric is "unjudged", never "~".
Formats: table, markdown, json, csv, lkp (the 0-day bot's %stddev %change
view), html (a self-contained report with plots).`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			if err := compare.CheckAlpha("--alpha", alpha); err != nil {
				return usageError{err}
			}
			opts := judgeOptions(cfg, alpha)
			opts.NoiseFloorPct = map[string]float64{}
			for k, v := range cfg.NoiseFloorPct {
				opts.NoiseFloorPct[k] = v
			}
			for k, v := range noise {
				f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
				if err != nil {
					return usageError{fmt.Errorf("--noise %s=%s: not a percentage", k, v)}
				}
				opts.NoiseFloorPct[k] = f
			}
			if err := opts.Validate(); err != nil {
				return usageError{err}
			}
			format = strings.ToLower(format) // -f JSON is -f json
			switch format {
			case "", "table", "markdown", "json", "csv", "lkp", "html":
			default:
				return usageError{fmt.Errorf("--format %q: want table, markdown, json, csv, lkp or html", format)}
			}
			ctx := cmd.Context()
			store, err := openReadOnly(cfg.StoreSpec())
			if err != nil {
				return err
			}
			defer store.Close()
			// With -o, everything goes to a buffer first, and the file is
			// replaced only when the whole diff was written: a failure
			// never empties it.
			var w io.Writer = os.Stdout
			var buf bytes.Buffer
			if output != "" {
				w = &buf
			}
			var diffs []*compare.Diff
			switch len(args) {
			case 0, 1:
				var id int64
				if len(args) == 1 {
					s, err := loadSet(ctx, store, args[0])
					if err != nil {
						return err
					}
					if s.variant != "" {
						return usageError{fmt.Errorf("%s is one variant: give a second set to compare it with", s.label)}
					}
					d, err := diffSet(s, opts, format, w)
					if err != nil {
						return err
					}
					if s.run != nil && (format == "" || format == "table") {
						for _, line := range sensitivity(store, s.run.Experiment, d) {
							fmt.Fprintln(w, "  note: "+line)
						}
					}
					diffs = append(diffs, d)
					break
				}
				run, err := store.LatestRun(ctx, "")
				if err != nil {
					return err
				}
				if run.Status == results.RunRunning {
					// A run still going is half a comparison: take the
					// newest one that ended, and say so.
					done, _ := store.FindRuns(ctx, results.Filter{Limit: 50})
					for _, r := range done {
						if r.Status != results.RunRunning {
							fmt.Fprintf(os.Stderr, "kregress: run %d is still running; comparing run %d, the newest that ended (kregress diff %d for the running one)\n", run.ID, r.ID, run.ID)
							run = r
							break
						}
					}
				}
				id = run.ID
				d, err := diffOneRun(ctx, store, id, opts, format, w)
				if err != nil {
					return err
				}
				diffs = append(diffs, d)
			case 2:
				a, err := loadSet(ctx, store, args[0])
				if err != nil {
					return err
				}
				other := store
				if against != "" {
					if other, err = openReadOnly(against); err != nil {
						return err
					}
					defer other.Close()
				}
				b, err := loadSet(ctx, other, args[1])
				if err != nil {
					return err
				}
				if a.label == b.label {
					a.label, b.label = a.label+" (A)", b.label+" (B)"
				}
				pairs, err := pairSets(a, b)
				if err != nil {
					return err
				}
				// Every variant's comparison first, then one
				// false-discovery family over all of them (as run judges
				// its candidates), then the output.
				var notesOf [][]string
				for _, p := range pairs {
					notes := []string{describe(a), describe(b)}
					if ms := compare.Mismatches(p[0].Results, p[1].Results); len(ms) > 0 {
						var lines []string
						for _, m := range ms {
							lines = append(lines, "  "+m.String())
						}
						if !force {
							return usageError{fmt.Errorf("%s and %s were not measured alike, so their numbers do not compare:\n%s\n(--force compares them anyway and prints these differences above the diff)", p[0].Label, p[1].Label, strings.Join(lines, "\n"))}
						}
						notes = append(notes, "WARNING, compared with --force although measured differently:\n"+strings.Join(lines, "\n"))
					}
					notesOf = append(notesOf, notes)
				}
				if diffs, err = compare.CompareFamily(pairs, opts); err != nil {
					return err
				}
				if len(diffs) > 1 {
					notesOf[0] = append(notesOf[0], fmt.Sprintf("note: the %d variants' metrics are judged as one false-discovery family", len(diffs)))
				}
				for i, p := range pairs {
					if err := writeDiff(w, format, fmt.Sprintf("%s vs %s", p[1].Label, p[0].Label), notesOf[i], diffs[i], p); err != nil {
						return err
					}
				}
			}
			if output != "" {
				if err := writeFileAtomic(output, func(f *os.File) error { _, err := f.Write(buf.Bytes()); return err }); err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "kregress: wrote %s\n", output)
			}
			if failOnRegression {
				for _, d := range diffs {
					if len(d.Failing()) > 0 {
						return exitCode(exitRegression)
					}
				}
				// Unmeasured candidates did not pass: exit 1.
				if err := compare.UnmeasuredErr(diffs...); err != nil {
					return err
				}
				for _, d := range diffs {
					if len(d.Unjudged()) > 0 {
						return exitCode(exitUnjudged)
					}
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Float64Var(&alpha, "alpha", 0.05, "false discovery rate over the metrics judged (Benjamini-Hochberg q of the Mann-Whitney U p-values), in (0, 1)")
	f.StringVarP(&format, "format", "f", "table", "table, markdown, json, csv, lkp or html")
	f.StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	f.StringVar(&against, "against", "", "read the second SET from this store (SQLite file or postgres:// DSN)")
	f.StringToStringVar(&noise, "noise", nil, "noise floor per metric in %, e.g. --noise reads_per_sec=2")
	f.BoolVar(&byHost, "by-host", false, "when a run's cells ran on several hosts (a cluster executor), compare the variants within each host, one table per host")
	f.BoolVar(&force, "force", false, "compare two sets even when they were measured differently (accelerator, vCPUs, memory, kernel config, command line, workload, QEMU, host CPU); the differences are printed")
	f.BoolVar(&failOnRegression, "fail-on-regression", false, "exit 3 when a candidate fails (crash, timeout, boot failure) more often than the baseline, a metric regresses significantly, its kernel prints a report (WARNING, BUG, lockdep, stall) the baseline's does not, or its selftest outcomes get worse; else exit 1 when a candidate was unmeasured (every cell an infrastructure error); else exit 9 when a primary metric was unjudged")
	return cmd
}

// pairSets builds the groups to compare: the two sets as given, or, when
// neither names a variant, every variant present in both.
func pairSets(a, b *set) ([][]compare.Group, error) {
	if (a.variant == "") != (b.variant == "") {
		// One whole run against one variant would pool the run's
		// variants into one sample.
		return nil, usageError{fmt.Errorf("%s names a variant and %s does not: name one on both sides (e.g. 12/stock b.json#stock) or on neither", map[bool]string{true: a.label, false: b.label}[a.variant != ""], map[bool]string{true: a.label, false: b.label}[a.variant == ""])}
	}
	if a.variant != "" {
		return [][]compare.Group{{{Label: a.label, Results: a.results}, {Label: b.label, Results: b.results}}}, nil
	}
	var pairs [][]compare.Group
	inB := map[string]bool{}
	for _, v := range results.VariantNames(b.results) {
		inB[v] = true
	}
	for _, v := range results.VariantNames(a.results) {
		if !inB[v] {
			continue
		}
		na, _ := narrow(&set{label: a.label, results: a.results}, v)
		nb, _ := narrow(&set{label: b.label, results: b.results}, v)
		pairs = append(pairs, []compare.Group{{Label: na.label, Results: na.results}, {Label: nb.label, Results: nb.results}})
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%s (%s) and %s (%s) have no variant in common: name them as RUN/VARIANT",
			a.label, strings.Join(results.VariantNames(a.results), ", "), b.label, strings.Join(results.VariantNames(b.results), ", "))
	}
	return pairs, nil
}

func describe(s *set) string {
	r := s.run
	line := fmt.Sprintf("%s: experiment %s, family %s, status %s, started %s", s.label, r.Experiment, r.Family, r.Status, r.StartedAt.Local().Format(time.DateTime))
	for _, x := range s.results {
		if p := x.Provenance; p.Accel != "" {
			line += fmt.Sprintf("; source %s, %d vCPUs (guest: %d online / %d possible), accel %s (%s)", p.SourceID, p.VCPUs, p.CPUsOnline, p.CPUsPossible, p.Accel, p.AccelReason)
			break
		}
	}
	return line
}

// diffSet compares a whole run's variants against its baseline.
func diffSet(s *set, opts compare.Options, format string, w io.Writer) (*compare.Diff, error) {
	if len(s.results) == 0 {
		return nil, fmt.Errorf("%s has no results", s.label)
	}
	notes := []string{describe(s)}
	if n := compare.HostsNote(s.results); n != "" {
		notes = append(notes, "note: "+n)
	}
	blocks := [][]*results.Result{s.results}
	if byHost {
		blocks = compare.ByHost(s.results)
	}
	var d *compare.Diff
	for _, rs := range blocks {
		title := fmt.Sprintf("%s: %s", s.label, s.run.Experiment)
		if byHost {
			title += " on host " + rs[0].Provenance.Host
		}
		var err error
		if d, err = compare.Compare(rs, s.run.Baseline, opts); err != nil {
			return nil, err
		}
		groups := []compare.Group{}
		for _, v := range d.Variants {
			var vr []*results.Result
			for _, r := range rs {
				if r.Variant == v.Name {
					vr = append(vr, r)
				}
			}
			groups = append(groups, compare.Group{Label: v.Name, Results: vr})
		}
		if byHost && (format == "" || format == "table") {
			fmt.Fprintf(w, "== %s\n", title)
		}
		if err := writeDiff(w, format, title, notes, d, groups); err != nil {
			return nil, err
		}
	}
	if byHost {
		// The exit code follows the whole set's verdict; the tables
		// per host show where it comes from.
		return compare.Compare(s.results, s.run.Baseline, opts)
	}
	return d, nil
}

// byHost: diff compares the variants within each host (--by-host).
var byHost bool

func diffOneRun(ctx context.Context, store results.Store, id int64, opts compare.Options, format string, w io.Writer) (*compare.Diff, error) {
	s, err := loadSet(ctx, store, strconv.FormatInt(id, 10))
	if err != nil {
		return nil, err
	}
	d, err := diffSet(s, opts, format, w)
	if err == nil && (format == "" || format == "table") {
		for _, line := range sensitivity(store, s.run.Experiment, d) {
			fmt.Fprintln(w, "  note: "+line)
		}
	}
	return d, err
}

func writeDiff(w io.Writer, format, title string, notes []string, d *compare.Diff, groups []compare.Group) error {
	switch format {
	case "html":
		return htmlreport.Render(w, htmlreport.Input{Title: "kregress " + title, Notes: notes, Diff: d, Groups: groups})
	case "", "table":
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
		fmt.Fprintln(w)
	}
	return d.Write(w, format)
}
