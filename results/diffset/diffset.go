// Package diffset resolves what a diff compares: the result sets named
// on a command line ("12", "12/stock", "a.json", "a.json#stock"), the
// latest run that ended, and the pairs of groups two sets make. It reads
// stores and export files; judging is results/compare's, rendering the
// caller's.
package diffset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/export"
	"github.com/kregress/kregress/results/runlist"
)

// Set is one side of a diff: a run (from a store or an export file),
// optionally narrowed to one variant.
type Set struct {
	Label   string
	Run     *results.Run
	Results []*results.Result
	// Variant is the one variant the set was narrowed to ("": all).
	Variant string
}

// IsFile reports whether arg names an exported file ("FILE.json" or
// "FILE.json#VARIANT") rather than a stored run.
func IsFile(arg string) bool {
	path, _, _ := strings.Cut(arg, "#")
	return strings.HasSuffix(path, ".json")
}

// CheckFiles checks that every set of args that names an exported file
// (IsFile) can be one (export.CheckFile), without reading any, and that
// every other is written as a run (RUN or RUN/VARIANT): a missing file, or
// a word that is no set at all (a directory, an experiment's YAML), is
// the mistake to name before any store is opened.
func CheckFiles(args []string) error {
	for _, a := range args {
		if IsFile(a) {
			path, _, _ := strings.Cut(a, "#")
			if err := export.CheckFile(path); err != nil {
				return err
			}
			continue
		}
		if _, err := runID(a); err != nil {
			return err
		}
	}
	return nil
}

// runID is the run a set written RUN or RUN/VARIANT names.
func runID(arg string) (int64, error) {
	idText, _, _ := strings.Cut(arg, "/")
	if _, err := strconv.ParseInt(idText, 10, 64); err != nil {
		if fi, err := os.Stat(arg); err == nil {
			what := "a file"
			if fi.IsDir() {
				what = "a directory"
			}
			return 0, usage.Errorf("%q is %s, not a set to compare: a SET is a run id (see `kregress results list`), RUN/VARIANT, or a FILE.json that `kregress results export` wrote", arg, what)
		}
		return 0, usage.Errorf("%q is neither a run id (see `kregress results list`), RUN/VARIANT, nor an exported FILE.json", arg)
	}
	// A number no run can have (0, -1) is the user's mistake, like any
	// other malformed id; a positive one not in the store stays the
	// store's "no run N".
	return runlist.ParseID(idText)
}

// Load reads "RUN", "RUN/VARIANT", "FILE.json" or "FILE.json#VARIANT";
// a RUN is read from store.
func Load(ctx context.Context, store results.Store, arg string) (*Set, error) {
	if path, variant, _ := strings.Cut(arg, "#"); IsFile(arg) {
		f, err := export.ReadFile(path)
		if err != nil {
			return nil, err
		}
		run, rs := f.Runs()
		return (&Set{Label: filepath.Base(path), Run: run, Results: rs}).Narrow(variant)
	}
	_, variant, _ := strings.Cut(arg, "/")
	id, err := runID(arg)
	if err != nil {
		return nil, err
	}
	return Run(ctx, store, id, variant)
}

// Run reads run id from store, narrowed to variant unless it is "".
func Run(ctx context.Context, store results.Store, id int64, variant string) (*Set, error) {
	run, err := store.GetRun(ctx, id)
	if err != nil {
		return nil, err
	}
	rs, err := store.Results(ctx, id)
	if err != nil {
		return nil, err
	}
	return (&Set{Label: fmt.Sprintf("run%d", id), Run: run, Results: rs}).Narrow(variant)
}

// Latest is the newest run of store that ended: a run still going is
// half a comparison. note, when not empty, says that a newer run is
// still running and was passed over.
func Latest(ctx context.Context, store results.Store) (id int64, note string, err error) {
	run, err := store.LatestRun(ctx, "")
	if err != nil {
		return 0, "", err
	}
	if run.Status != results.RunRunning {
		return run.ID, "", nil
	}
	done, _ := store.FindRuns(ctx, results.Filter{Limit: 50})
	for _, r := range done {
		if r.Status != results.RunRunning {
			return r.ID, fmt.Sprintf("run %d is still running; comparing run %d, the newest that ended (kregress diff %d for the running one)", run.ID, r.ID, run.ID), nil
		}
	}
	return run.ID, "", nil
}

// Narrow is s with only variant's results ("": s itself).
func (s *Set) Narrow(variant string) (*Set, error) {
	if variant == "" {
		return s, nil
	}
	var keep []*results.Result
	for _, r := range s.Results {
		if r.Variant == variant {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		return nil, usage.Errorf("%s has no results for variant %q (it has: %s)", s.Label, variant, strings.Join(results.VariantNames(s.Results), ", "))
	}
	sep := "/" // RUN/VARIANT
	if strings.HasSuffix(s.Label, ".json") {
		sep = "#" // FILE.json#VARIANT, as the user writes it
	}
	return &Set{Label: s.Label + sep + variant, Run: s.Run, Results: keep, Variant: variant}, nil
}

// Pairs builds the groups to compare: the two sets as given, or, when
// neither names a variant, every variant present in both.
func Pairs(a, b *Set) ([][]compare.Group, error) {
	if (a.Variant == "") != (b.Variant == "") {
		// One whole run against one variant would pool the run's
		// variants into one sample.
		named, whole := a, b
		if a.Variant == "" {
			named, whole = b, a
		}
		return nil, usage.Errorf("%s names a variant and %s does not: name one on both sides (e.g. 12/stock b.json#stock) or on neither", named.Label, whole.Label)
	}
	if a.Variant != "" {
		return [][]compare.Group{{{Label: a.Label, Results: a.Results}, {Label: b.Label, Results: b.Results}}}, nil
	}
	var pairs [][]compare.Group
	inB := map[string]bool{}
	for _, v := range results.VariantNames(b.Results) {
		inB[v] = true
	}
	for _, v := range results.VariantNames(a.Results) {
		if !inB[v] {
			continue
		}
		na, _ := a.Narrow(v)
		nb, _ := b.Narrow(v)
		pairs = append(pairs, []compare.Group{{Label: na.Label, Results: na.Results}, {Label: nb.Label, Results: nb.Results}})
	}
	if len(pairs) == 0 {
		return nil, usage.Errorf("%s (%s) and %s (%s) have no variant in common: name them as RUN/VARIANT",
			a.Label, strings.Join(results.VariantNames(a.Results), ", "), b.Label, strings.Join(results.VariantNames(b.Results), ", "))
	}
	return pairs, nil
}

// Mismatches says, per pair, how its two groups were measured
// differently (compare.Mismatches), one line each; a pair measured alike
// has none.
func Mismatches(pairs [][]compare.Group) [][]string {
	out := make([][]string, len(pairs))
	for i, p := range pairs {
		for _, m := range compare.Mismatches(p[0].Results, p[1].Results) {
			out[i] = append(out[i], "  "+m.String())
		}
	}
	return out
}

// Describe is s's provenance line: experiment, family, status, start,
// and how its first measured cell was measured.
func (s *Set) Describe() string {
	r := s.Run
	line := fmt.Sprintf("%s: experiment %s, family %s, status %s, started %s", s.Label, r.Experiment, r.Family, r.Status, r.StartedAt.Local().Format(time.DateTime))
	for _, x := range s.Results {
		if p := x.Provenance; p.Accel != "" {
			line += fmt.Sprintf("; source %s, %d vCPUs (guest: %d online / %d possible), accel %s (%s)", p.SourceID, p.VCPUs, p.CPUsOnline, p.CPUsPossible, p.Accel, p.AccelReason)
			break
		}
	}
	return line
}

// Groups are rs split by d's variants, in d's order: what a renderer
// plots beside d.
func Groups(d *compare.Diff, rs []*results.Result) []compare.Group {
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
	return groups
}
