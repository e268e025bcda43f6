package diffreport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/noise"
	"github.com/kregress/kregress/results/store/storetest"
	"github.com/kregress/kregress/results/verdict"
)

const why = "primary metric: reads_per_sec instead of rstat_lock_hold_p99_us, which git tree /linux at v6.1 (6.1.192) cannot produce"

// fallbackStore holds run 1, which judged its own primary, and run 2,
// which judged the workload's fallback (its stored configuration says
// why); six cells per variant each.
func fallbackStore(t *testing.T) results.Store {
	t.Helper()
	s := storetest.SQLite(t)
	for _, config := range []string{"repetitions: 6\n", "repetitions: 6\nprimary_fallback: '" + why + "'\n"} {
		storetest.AddReadsRun(t, s, config, []string{"stock", "fast"}, 6)
	}
	return s
}

func render(t *testing.T, rep *Report, f format.Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.Render(&b, f); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return b.String()
}

// A run that judged its workload's fallback primary says so in every
// format that carries notes: the table's note, the JSON's warnings, a
// Markdown note line; a run that judged its own says nothing of it.
func TestFallbackWarningInEveryFormat(t *testing.T) {
	s := fallbackStore(t)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	whole, err := Whole(ctx, s, "2", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	two, err := Two(ctx, s, s, "1", "2", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]*Report{"diff 2": whole, "diff 1 2": two} {
		if out := render(t, rep, format.Table); !strings.Contains(out, "run2: warning: "+why) {
			t.Errorf("%s: the table lacks the warning:\n%s", name, out)
		}
		if out := render(t, rep, format.Markdown); !strings.Contains(out, "> **Warning:** run2: "+why+"\n") {
			t.Errorf("%s: the Markdown lacks the warning line:\n%s", name, out)
		}
		// One document; each comparison in it carries the warning.
		for _, doc := range jsonParts(t, render(t, rep, format.JSON), len(rep.Parts)) {
			if len(doc.Warnings) != 1 || doc.Warnings[0] != "run2: "+why {
				t.Errorf("%s: JSON warnings %q, want [run2: %s]", name, doc.Warnings, why)
			}
		}
	}
	own, err := Whole(ctx, s, "1", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []format.Format{format.Table, format.Markdown} {
		if out := render(t, own, f); strings.Contains(out, "instead of") || strings.Contains(out, "**Warning:**") {
			t.Errorf("run 1 judged its own primary, its %s warns:\n%s", f, out)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(render(t, own, format.JSON)), &doc); err != nil {
		t.Fatal(err)
	}
	if w, ok := doc["warnings"]; ok {
		t.Errorf("run 1 judged its own primary, its JSON has warnings %v", w)
	}
}

func TestWholeAndTwoSets(t *testing.T) {
	s := fallbackStore(t)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	if _, err := Whole(ctx, s, "1/stock", opts, false); err == nil || !strings.Contains(err.Error(), "is one variant") {
		t.Errorf("one variant as a whole set: %v", err)
	}
	rep, err := Whole(ctx, s, "1", opts, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Parts) != 1 || !rep.Parts[0].Header || len(rep.Verdicts) != 1 {
		t.Errorf("--by-host on one host: %d parts (header %v), %d verdicts; want one headed part and the whole set's verdict", len(rep.Parts), rep.Parts[0].Header, len(rep.Verdicts))
	}
	if out := render(t, rep, format.Table); !strings.HasPrefix(out, "== run1: rstat-relock on host ") {
		t.Errorf("--by-host table starts %q", strings.SplitN(out, "\n", 2)[0])
	}
	two, err := Two(ctx, s, s, "1", "1", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	// Both variants compared, labelled apart, in one family.
	var titles []string
	for _, p := range two.Parts {
		titles = append(titles, p.Title)
	}
	if want := "run1 (B)/fast vs run1 (A)/fast\nrun1 (B)/stock vs run1 (A)/stock"; strings.Join(titles, "\n") != want {
		t.Errorf("diff 1 1: parts %q, want %q", titles, want)
	}
	if !strings.Contains(strings.Join(two.Parts[0].Notes, "\n"), "judged as one false-discovery family") {
		t.Errorf("diff 1 1: no family note in %q", two.Parts[0].Notes)
	}
}

// PrintRun prints a stored run's table, the one `kregress diff RUN`
// prints (pinned by testdata/golden/run2.table), and returns the run's
// verdict.
func TestPrintRun(t *testing.T) {
	s := goldenStore(t)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	var b bytes.Buffer
	ds, err := PrintRun(ctx, s, 2, opts, &b)
	if err != nil {
		t.Fatal(err)
	}
	want := testfile.Read(t, filepath.Join("testdata", "golden", "run2.table"))
	if got := started.ReplaceAllString(b.String(), "started $$STARTED"); got != want {
		t.Errorf("PrintRun printed\n%s\nwant diff 2's table\n%s", got, want)
	}
	if len(ds) != 1 {
		t.Fatalf("PrintRun gave %d verdicts for a run without a sweep, want 1", len(ds))
	}
	if d := ds[0]; d == nil || d.Baseline != "stock" || len(d.Metrics["fast"]) != 2 || d.Metrics["fast"][0].Name != "reads_per_sec" || d.Metrics["fast"][0].Verdict != verdict.Improvement {
		t.Errorf("PrintRun's verdict %+v, want run 2's: fast's reads_per_sec an improvement over stock", d)
	}
	if _, err := PrintRun(ctx, s, 9, opts, &b); err == nil {
		t.Error("PrintRun of a run that does not exist: no error")
	}
}

// No set is the latest run that ended; one is its variants; more than
// two is refused.
func TestBuild(t *testing.T) {
	s := fallbackStore(t)
	ctx := context.Background()
	opts := compare.Options{Primary: []string{"reads_per_sec"}}
	rep, note, err := Build(ctx, s, s, Request{Judging: opts, Alpha: 0.05})
	if err != nil || note != "" || len(rep.Parts) != 1 || rep.Parts[0].Title != "run2: rstat-relock" {
		t.Fatalf("no set: %v, note %q", err, note)
	}
	if rep, _, err := Build(ctx, s, s, Request{Sets: []string{"1"}, Judging: opts, Alpha: 0.05}); err != nil || rep.Parts[0].Title != "run1: rstat-relock" {
		t.Errorf("one set: %v", err)
	}
	if rep, _, err := Build(ctx, s, s, Request{Sets: []string{"1/fast", "2/fast"}, Judging: opts, Alpha: 0.05}); err != nil || rep.Parts[0].Title != "run2/fast vs run1/fast" {
		t.Errorf("two sets: %v", err)
	}
	if _, _, err := Build(ctx, s, s, Request{Sets: []string{"1", "2", "3"}, Judging: opts, Alpha: 0.05}); err == nil {
		t.Error("three sets compared")
	}
	if _, _, err := Build(ctx, s, s, Request{Sets: []string{"1"}, Judging: opts, Alpha: 2}); !usage.Is(err) {
		t.Errorf("alpha 2: %v, want a usage error", err)
	}
}

// A change the diff did not call is named below the table when the
// experiment's latest noise run says this n could not have seen it.
func TestUnseenNamesWhatTheNoiseRunCouldNotSee(t *testing.T) {
	s := fallbackStore(t)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	if rep, err := Whole(ctx, s, "1", opts, false); err != nil || len(rep.TableNotes) != 0 {
		t.Fatalf("no noise run: %v, notes %q", err, rep.TableNotes)
	}
	r := &results.Run{Experiment: noise.ExperimentPrefix + "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{2000, 2400, 2800, 2400} {
		res := &results.Result{RunID: r.ID, Variant: "stock", Repetition: i + 1, Seq: i + 1, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: v}}}
		if err := s.AddResult(ctx, res); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
		t.Fatal(err)
	}
	rep, err := Whole(ctx, s, "1", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.TableNotes) != 1 || !strings.Contains(rep.TableNotes[0], "fast reads_per_sec: ") || !strings.Contains(rep.TableNotes[0], "is below what this setup can see at n=6+6") {
		t.Fatalf("notes %q", rep.TableNotes)
	}
	if out := render(t, rep, format.Table); !strings.Contains(out, "  note: "+rep.TableNotes[0]+"\n") {
		t.Errorf("the table lacks the note:\n%s", out)
	}
	if out := render(t, rep, format.Markdown); strings.Contains(out, "below what this setup") {
		t.Errorf("the note is the table's only, Markdown has it:\n%s", out)
	}
}

// Options are the experiment's at --alpha with --noise's floors over the
// configured ones, which stay as they were; a bad alpha or floor is the
// user's mistake.
func TestRequestOptions(t *testing.T) {
	judging := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}, NoiseFloorPct: map[string]float64{"reads_per_sec": 2}}
	req := Request{Judging: judging, Alpha: 0.01, Noise: map[string]string{"read_latency_p50_us": "3%", "reads_per_sec": "5"}}
	opts, err := req.Options()
	if err != nil {
		t.Fatal(err)
	}
	if opts.Alpha != 0.01 || opts.NoiseFloorPct["read_latency_p50_us"] != 3 || opts.NoiseFloorPct["reads_per_sec"] != 5 || opts.Primary[0] != "reads_per_sec" {
		t.Errorf("alpha %g, floors %v, primary %v: want 0.01, read_latency_p50_us 3 and reads_per_sec 5 (--noise over the configured), reads_per_sec", opts.Alpha, opts.NoiseFloorPct, opts.Primary)
	}
	if judging.NoiseFloorPct["reads_per_sec"] != 2 {
		t.Errorf("--noise changed the configuration's floor to %g", judging.NoiseFloorPct["reads_per_sec"])
	}
	if opts, err := (Request{Alpha: 0.05, Noise: map[string]string{"m": "1"}}).Options(); err != nil || opts.NoiseFloorPct["m"] != 1 {
		t.Errorf("no configured floors: %v, %v", opts.NoiseFloorPct, err)
	}
	for name, bad := range map[string]Request{"alpha": {Judging: judging, Alpha: 1.5}, "floor": {Judging: judging, Alpha: 0.05, Noise: map[string]string{"m": "two"}}} {
		if _, err := bad.Options(); !usage.Is(err) {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
}

// Load reads the sets from the store named, the second of two from
// --against's, and refuses bad options before it opens either.
func TestLoad(t *testing.T) {
	here, there := t.TempDir(), t.TempDir()
	for _, dir := range []string{here, there} {
		s := storetest.SQLiteIn(t, dir)
		storetest.AddReadsRun(t, s, "repetitions: 6\n", []string{"stock", "fast"}, 6)
	}
	storetest.AddReadsRun(t, storetest.SQLiteIn(t, there), "repetitions: 6\n", []string{"stock", "fast"}, 6)
	ctx := context.Background()
	req := Request{Sets: []string{"1/fast", "2/fast"}, Judging: compare.Options{Primary: []string{"reads_per_sec"}}, Alpha: 0.05,
		Store: filepath.Join(here, "kregress.db"), Against: filepath.Join(there, "kregress.db")}
	var said bytes.Buffer
	rep, err := Load(ctx, req, &said)
	if err != nil || rep.Parts[0].Title != "run2/fast vs run1/fast" || said.Len() != 0 {
		t.Fatalf("run 1 here against run 2 there: %v, said %q", err, said.String())
	}
	req.Against = ""
	if _, err := Load(ctx, req, &said); err == nil || !strings.Contains(err.Error(), "2") {
		t.Errorf("run 2 read here, where there is none: %v", err)
	}
	// No set while the newest run still runs: the latest that ended,
	// and a note saying so.
	storetest.AddRun(t, storetest.SQLiteIn(t, here), results.RunRunning, []string{"stock"})
	req.Sets = nil
	if rep, err := Load(ctx, req, &said); err != nil || rep.Parts[0].Title != "run1: rstat-relock" || !strings.HasPrefix(said.String(), "kregress: run 2 is still running; comparing run 1") {
		t.Errorf("no set, run 2 running: %v, said %q", err, said.String())
	}
	req.Alpha, req.Store = 0, filepath.Join(t.TempDir(), "none.db")
	if _, err := Load(ctx, req, &said); !usage.Is(err) || !strings.Contains(err.Error(), "--alpha") {
		t.Errorf("alpha 0: %v, want the usage error before any store is opened", err)
	}
}

// Gate ends a diff as --fail-on-regression says: nothing without it,
// exit 3 on a failing candidate, exit 1 with its name on an unmeasured one.
func TestGate(t *testing.T) {
	failing := &Report{Verdicts: []*compare.Diff{{
		Variants: []*compare.Variant{{Name: "base"}, {Name: "patched"}},
		Metrics:  map[string][]compare.Metric{"patched": {{Name: "reads_per_sec", Primary: true, Verdict: verdict.Regression}}},
	}}}
	if err := failing.Gate(false); err != nil {
		t.Errorf("without --fail-on-regression: %v", err)
	}
	if err := failing.Gate(true); verdict.ExitOf(err) != verdict.ExitRegression {
		t.Errorf("a regression: %v (exit %d), want exit %d", err, verdict.ExitOf(err), verdict.ExitRegression)
	}
	s := fallbackStore(t)
	rep, err := Whole(context.Background(), s, "1", compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Gate(true); err != nil {
		t.Errorf("no change: %v", err)
	}
}

// A run's fallback is the run's: two sets of it (12/stock 12/fast, or 12
// 12) say it once, labelled with the run, in every format; the same run
// id in two stores is two runs, each said with its set's label.
func TestFallbackSaidOncePerRun(t *testing.T) {
	s := fallbackStore(t)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	for _, sets := range [][2]string{{"2/stock", "2/fast"}, {"2", "2"}, {"2/fast", "2/fast"}} {
		rep, err := Two(ctx, s, s, sets[0], sets[1], opts, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range jsonParts(t, render(t, rep, format.JSON), len(rep.Parts)) {
			if len(doc.Warnings) != 1 || doc.Warnings[0] != "run2: "+why {
				t.Errorf("diff %s %s: JSON warnings %q, want [run2: %s]", sets[0], sets[1], doc.Warnings, why)
			}
		}
		table := render(t, rep, format.Table)
		if n := strings.Count(table, "warning: "+why); n != len(rep.Parts) {
			t.Errorf("diff %s %s: the table warns %d times over %d comparisons:\n%s", sets[0], sets[1], n, len(rep.Parts), table)
		}
		if n := strings.Count(render(t, rep, format.Markdown), "**Warning:**"); n != len(rep.Parts) {
			t.Errorf("diff %s %s: the Markdown warns %d times over %d comparisons", sets[0], sets[1], n, len(rep.Parts))
		}
	}
	rep, err := Two(ctx, s, fallbackStore(t), "2/fast", "2/fast", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	if w := rep.Parts[0].Warnings; len(w) != 2 || w[0] != "run2/fast (A): "+why || w[1] != "run2/fast (B): "+why {
		t.Errorf("run 2 here and run 2 there: warnings %q, want each set's", w)
	}
	// Two runs: each set's warning, with the set's label, as before.
	if rep, err = Two(ctx, s, s, "2/fast", "1/fast", opts, false); err != nil {
		t.Fatal(err)
	}
	if w := rep.Parts[0].Warnings; len(w) != 1 || w[0] != "run2/fast: "+why {
		t.Errorf("diff 2/fast 1/fast: warnings %q, want run 2's with the set's label", w)
	}
}

// A diff of exported files names a missing file, not the store it would
// never need (the user's mistake: exit 2), and creates nothing.
func TestMissingExportFileNamedBeforeTheStore(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "night.json")
	_, err := Load(context.Background(), Request{Alpha: 0.05, Store: filepath.Join(dir, "nostore", "k.db"), Sets: []string{missing + "#stock", missing + "#per-cpu-relock"}}, io.Discard)
	if !usage.Is(err) || !strings.Contains(err.Error(), "export file "+missing+": no such file") {
		t.Fatalf("diff of a missing export file: %v, want a usage error naming the file", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nostore")); !os.IsNotExist(err) {
		t.Fatalf("the diff created the store's directory: %v", err)
	}
}
