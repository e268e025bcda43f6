package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func samplePage(at time.Time) string {
	return benchmarksPage(at, "-markdown docs/benchmarks.md -boots 7", measured{
		Host: "AMD EPYC, 2 cores; kernel debian 6.12, tinyconfig + guest.config, make -j2",
		Load: describeLoad([]float64{0.5, 2.5, 1.0}, 2),
		Figures: []figureRow{
			{Label: "cold build, stock (unpack + config + make, no ccache)", Value: "215.3"},
			{Label: "selftest gate per variant (goal <= 60)", Value: "48.0", Detail: true},
			{Label: "null comparison, x", Value: "1 significant change(s): [a|b]"},
		},
		Details: []string{"reads_per_sec per boot (a): 1 2 3"},
	})
}

func TestBenchmarksPageIsOneDatedTable(t *testing.T) {
	page := samplePage(time.Date(2026, 12, 5, 13, 40, 0, 0, time.UTC))
	wantIn(t, "page", page,
		"# Benchmarks\n",
		"Measured 2026-12-05 13:40 UTC by `go run ./orchestrator/cmd/kregress-bench -markdown docs/benchmarks.md -boots 7` on AMD EPYC, 2 cores;",
		"| figure | value |\n|---|---|\n| cold build, stock (unpack + config + make, no ccache) | 215.3 |\n| &nbsp;&nbsp;selftest gate per variant (goal <= 60) | 48.0 |\n",
		"Host load while measuring: 1-minute load average median 1.0, max 2.5 on 2 cores (3 samples).\n",
		`| null comparison, x | 1 significant change(s): [a\|b] |`,
		"- reads_per_sec per boot (a): 1 2 3\n",
	)
	if n := strings.Count(page, "Measured "); n != 1 {
		t.Errorf("page has %d dated lines, want 1:\n%s", n, page)
	}
	if n := strings.Count(page, "| figure | value |"); n != 1 {
		t.Errorf("page has %d tables, want 1:\n%s", n, page)
	}
}

// Writing the page twice leaves one run's page, not two: make bench
// replaces docs/benchmarks.md.
func TestBenchmarksPageReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "benchmarks.md")
	first := samplePage(time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC))
	second := samplePage(time.Date(2026, 12, 5, 13, 40, 0, 0, time.UTC))
	for _, page := range []string{first, second} {
		if err := writePage(path, page); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != second {
		t.Fatalf("after two runs the page is not the second run's:\n%s", got)
	}
}

// The committed page has the generator's shape: its header and one
// table of figure and value (with a "measured" column when its figures
// come from several runs).
func TestCommittedPageHasTheGeneratorsShape(t *testing.T) {
	page, err := os.ReadFile("../../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	header := samplePage(time.Now())
	header = header[:strings.Index(header, "Measured ")]
	if !strings.HasPrefix(string(page), header) {
		t.Errorf("docs/benchmarks.md does not start with the generator's header:\n%s", header)
	}
	if n := strings.Count(string(page), "| figure | value |"); n != 1 {
		t.Errorf("docs/benchmarks.md has %d figure tables, want 1", n)
	}
}
