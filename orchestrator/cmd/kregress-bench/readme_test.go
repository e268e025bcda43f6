package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's durations are docs/benchmarks.md's, as the generator
// writes them: editing either by hand, or regenerating the page without
// the README, fails here (make bench -readme README.md, or
// kregress-bench -readme-only, rewrites the block).
func TestREADMEQuotesTheBenchmarksPage(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	page, err := readPage(filepath.Join(root, "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := durationsBlock(page)
	if !strings.Contains(string(readme), block) {
		t.Errorf("README.md's durations block is not the one docs/benchmarks.md gives; run\n"+
			"  go run ./orchestrator/cmd/kregress-bench -markdown docs/benchmarks.md -readme README.md -readme-only\nwant:\n%s", block)
	}
}

func TestDurationsBlock(t *testing.T) {
	page := benchmarksPage(time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC), "", measured{
		Host: "AMD EPYC, 2 cores; kernel x", Commit: "c309c88",
		Figures: []figureRow{
			{Label: "bisect of 8 commits (culprit 27fb2e8ae109), wall", Value: "1529.0"},
			{Label: "build time per tried commit", Value: "173.4", Detail: true},
			{Label: "default experiment, cached builds (10 cells x 10s)", Value: "452.9"},
			{Label: labelFirstVerdict, Value: "1200.0"},
			{Label: strings.TrimSpace(labelFirstDone), Value: "1920.0", Detail: true},
			{Label: labelNightFirst, Value: "300.0"},
			{Label: strings.TrimSpace(labelNightJudged), Value: "390.0", Detail: true},
		},
	})
	block := durationsBlock(mustParse(t, page))
	wantIn(t, "block", block,
		"| first verdict after 20.0 min, done after 32.0 min |",
		"| a later run of the default experiment, kernels cached (10 boots) | 7.5 min |",
		"| 5.0 min (the first, which becomes the baseline), 6.5 min (the next, judged) |",
		"| 25.5 min (2.9 min to build each commit tried) |",
		"Quoted from [docs/benchmarks.md](docs/benchmarks.md), measured 2026-12-06 20:00 UTC at commit c309c88 on AMD EPYC, 2 cores.\n",
	)
	// A page without the first run's figures says so; it never borrows.
	if b := durationsBlock(mustParse(t, strings.Replace(page, "first run", "frist run", -1))); !strings.Contains(b, "then the default experiment's boots | not in this generation |") {
		t.Errorf("block of a page without the first run:\n%s", b)
	}
	// The block replaces the old one, and only it.
	text := "# R\n\nbefore\n" + readmeBegin + "\nold\n" + readmeEnd + "\nafter\n"
	got, err := withBlock(text, block)
	if err != nil || got != "# R\n\nbefore\n"+block+"after\n" {
		t.Errorf("withBlock: %v\n%s", err, got)
	}
	if _, err := withBlock("# R\n", block); err == nil {
		t.Error("a README without the markers was accepted")
	}
}

// mustParse is the page parsePage reads from text.
func mustParse(t *testing.T, text string) benchPage {
	t.Helper()
	p, err := parsePage(text)
	if err != nil {
		t.Fatalf("%v:\n%s", err, text)
	}
	return p
}
