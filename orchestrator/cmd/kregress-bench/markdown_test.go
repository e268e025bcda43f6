package main

import (
	"strings"
	"testing"
	"time"
)

func TestBenchmarksPageIsOneDatedBlock(t *testing.T) {
	at := time.Date(2026, 12, 5, 13, 40, 0, 0, time.UTC)
	page := benchmarksPage(at, "-markdown docs/benchmarks.md -boots 7", "figure   seconds\ncold build   215.3\n")
	for _, want := range []string{
		"# Benchmarks\n",
		"Measured 2026-12-05 13:40 UTC by `go run ./orchestrator/cmd/kregress-bench -markdown docs/benchmarks.md -boots 7`",
		"```\nfigure   seconds\ncold build   215.3\n```\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if n := strings.Count(page, "```"); n != 2 {
		t.Errorf("page has %d fences, want one block (2):\n%s", n, page)
	}
	if !strings.HasSuffix(page, "```\n") {
		t.Errorf("the block must end the page (nothing appended after it):\n%s", page)
	}
}
