package diffreport

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/store/storetest"
)

// goldenStore holds two complete rstat-relock runs of stock and fast,
// eight cells per variant each, their cells split over hosts a and b:
// in run 2 fast reads faster and its latency drops, in run 1 neither
// moves. Every figure is fixed, so that every rendering of a diff of
// them is too.
func goldenStore(t *testing.T) results.Store {
	t.Helper()
	s := storetest.SQLite(t)
	ctx := context.Background()
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for run, gain := range []float64{0, 300} {
		r := &results.Run{Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "fast"},
			StartedAt: started.Add(time.Duration(run) * time.Hour), Status: results.RunRunning, Config: "repetitions: 8\n"}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i := range 8 {
			for j, v := range r.Variants {
				reads, latency := 2400+float64(i*7%5), 40+float64(i*3%4)
				if v == "fast" {
					reads, latency = reads+gain, latency-gain/100
				}
				res := &results.Result{RunID: r.ID, Variant: v, Repetition: i + 1, Seq: 2*i + j + 1, Status: results.StatusOK,
					Provenance: results.Provenance{Host: []string{"a", "b"}[i%2], HostCPU: "cpu", Accel: "kvm", VCPUs: 2, CPUsOnline: 2, CPUsPossible: 2},
					Metrics: []agentproto.Metric{
						{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: reads},
						{Name: "read_latency_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: latency},
					}}
				if err := s.AddResult(ctx, res); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// started is a run's start as Describe prints it, in this machine's
// time zone: scrubbed from golden files.
var started = regexp.MustCompile(`started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)

// checkDiffGolden renders rep in every format of a diff and compares each
// with testdata/golden/name.FORMAT.
func checkDiffGolden(t *testing.T, name string, rep *Report) {
	t.Helper()
	for _, f := range Formats {
		out := started.ReplaceAllString(render(t, rep, format.Format(f)), "started $$STARTED")
		testfile.Golden(t, filepath.Join("testdata", "golden", name+"."+f), out)
	}
}

// A diff of one comparison (a run's two variants, or one variant of two
// runs) renders byte for byte as the golden files say, in every format.
func TestOneComparisonGolden(t *testing.T) {
	s := goldenStore(t)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	whole, err := Whole(ctx, s, "2", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	checkDiffGolden(t, "run2", whole)
	two, err := Two(ctx, s, s, "1/fast", "2/fast", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	checkDiffGolden(t, "run2-fast-vs-run1-fast", two)
}

// jsonPart is what a test reads of one comparison in a diff's JSON.
type jsonPart struct {
	Title    string   `json:"title"`
	Baseline string   `json:"baseline"`
	Verdict  string   `json:"verdict"`
	Warnings []string `json:"warnings"`
}

// jsonParts decodes out, a diff's whole JSON output, as one value: the
// comparison's object when the diff has one (n), else an object whose
// "parts" are the n comparisons'.
func jsonParts(t *testing.T, out string, n int) []jsonPart {
	t.Helper()
	if n == 1 {
		var doc struct {
			jsonPart
			Parts json.RawMessage `json:"parts"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("one comparison's JSON is not one value: %v\n%s", err, out)
		}
		if doc.Parts != nil || doc.Baseline == "" || doc.Verdict == "" {
			t.Fatalf("one comparison's JSON is not the comparison's object:\n%s", out)
		}
		return []jsonPart{doc.jsonPart}
	}
	var doc struct {
		Parts []jsonPart `json:"parts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%d comparisons' JSON is not one value: %v\n%s", n, err, out)
	}
	if len(doc.Parts) != n {
		t.Fatalf("%d comparisons, %d parts in the JSON", n, len(doc.Parts))
	}
	return doc.Parts
}

// A diff of several comparisons (each variant of two runs, a run's
// variants per host) is one document in every format: one JSON value
// with a part per comparison, one CSV with one header and a comparison
// column, one HTML page with a section per comparison, one Markdown
// document with a section per comparison. Each is decoded whole, and
// pinned byte for byte.
func TestSeveralComparisonsOneDocument(t *testing.T) {
	s := goldenStore(t)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	two, err := Two(ctx, s, s, "1", "2", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	byHost, err := Whole(ctx, s, "2", opts, true)
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]*Report{"run2-vs-run1": two, "run2-by-host": byHost} {
		if len(rep.Parts) != 2 {
			t.Fatalf("%s: %d comparisons, want 2", name, len(rep.Parts))
		}
		var titles []string
		for _, p := range rep.Parts {
			titles = append(titles, p.Title)
		}
		for i, p := range jsonParts(t, render(t, rep, format.JSON), len(rep.Parts)) {
			if p.Title != titles[i] || p.Verdict == "" {
				t.Errorf("%s: JSON part %d is %q (verdict %q), want %q", name, i, p.Title, p.Verdict, titles[i])
			}
		}

		rows, err := csv.NewReader(strings.NewReader(render(t, rep, format.CSV))).ReadAll()
		if err != nil {
			t.Fatalf("%s: the CSV does not read as one table: %v", name, err)
		}
		if len(rows) == 0 || rows[0][0] != "comparison" || rows[0][1] != "baseline" {
			t.Fatalf("%s: CSV header %q, want comparison first", name, rows[0])
		}
		perPart := map[string]int{}
		for _, row := range rows[1:] {
			if row[1] == "baseline" {
				t.Errorf("%s: the CSV header repeats: %q", name, row)
			}
			perPart[row[0]]++
		}
		for i, p := range rep.Parts {
			want := 0
			for _, ms := range p.Diff.Metrics {
				want += len(ms)
			}
			if perPart[titles[i]] != want {
				t.Errorf("%s: %d CSV rows of %q, want its %d metric rows", name, perPart[titles[i]], titles[i], want)
			}
		}

		page := render(t, rep, format.HTML)
		for _, once := range []string{"<!DOCTYPE html>", "<html", "<body>", "</body></html>"} {
			if n := strings.Count(page, once); n != 1 {
				t.Errorf("%s: the HTML holds %q %d times, want one page", name, once, n)
			}
		}
		for i, title := range titles {
			if !strings.Contains(page, fmt.Sprintf("<section id=\"part-%d\">\n<h2>%s</h2>", i, html.EscapeString(title))) {
				t.Errorf("%s: the HTML has no section %d headed %q", name, i, title)
			}
		}
		if n := strings.Count(page, "<section "); n != len(titles) {
			t.Errorf("%s: %d HTML sections, want %d", name, n, len(titles))
		}

		md := render(t, rep, format.Markdown)
		var heads []string
		for line := range strings.Lines(md) {
			if strings.HasPrefix(line, "## ") {
				heads = append(heads, strings.TrimSuffix(strings.TrimPrefix(line, "## "), "\n"))
			}
		}
		if strings.Join(heads, "\n") != strings.Join(titles, "\n") {
			t.Errorf("%s: Markdown sections %q, want %q", name, heads, titles)
		}
		checkDiffGolden(t, name, rep)
	}
}
