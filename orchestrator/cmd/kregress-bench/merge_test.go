package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fullRun is a page of every part but the first run and the nights, as
// the committed page was before they were measured.
func fullRun() benchPage {
	return pageOf(time.Date(2026, 12, 5, 20, 49, 0, 0, time.UTC), "-markdown docs/benchmarks.md -readme README.md", measured{
		Host: "AMD EPYC, 2 cores; kernel x, tinyconfig + guest.config, make -j3", Load: "1-minute load average median 16.1, max 19.8 on 2 cores (280 samples)",
		Figures: []figureRow{
			{Label: "cold build, stock (unpack + config + make, no ccache)", Value: "733.4"},
			{Label: "bisect of 8 commits (culprit 27fb2e8ae109), wall", Value: "1529.0"},
			{Label: "build time per tried commit", Value: "173.4", Detail: true},
			{Label: "rerun, both variants cached", Value: "0.26"},
			{Label: "boot to SSH ready, 2 vCPUs, tcg (median of 3) (goal <= 2.5 under TCG)", Value: "3.05"},
			{Label: "CPUs online in the guest, 2 vCPUs", Value: "2", Detail: true},
			{Label: "boot to SSH ready, 8 vCPUs, tcg (median of 3)", Value: "4.74"},
			{Label: "default experiment, cached builds (10 cells x 10s)", Value: "452.9"},
			{Label: "CV between boots, reads_per_sec (a, goal <= 0.03)", Value: "0.009"},
			{Label: "null comparison, x, 8+8", Value: "no significant change (goal)"},
		},
		Details: []string{"reads_per_sec per boot (a): 590.2 595.2"},
	})
}

// durationsRun is what make bench-durations measures: the first run and
// the nights, beside the boots and the cached rerun every run times (at
// 2 vCPUs only here).
func durationsRun() benchPage {
	return pageOf(time.Date(2026, 12, 6, 22, 10, 0, 0, time.UTC), "-skip-cold -keep-unmeasured", measured{
		Host: "AMD EPYC, 2 cores; kernel x, tinyconfig + guest.config, make -j3", Commit: "abc1234", Load: "1-minute load average median 3.0, max 5.0 on 2 cores (200 samples)",
		Figures: []figureRow{
			{Label: "rerun, both variants cached", Value: "0.30"},
			{Label: "boot to SSH ready, 2 vCPUs, tcg (median of 3) (goal <= 2.5 under TCG)", Value: "2.90"},
			{Label: labelFirstVerdict, Value: "870.0"},
			{Label: strings.TrimSpace(labelFirstDone), Value: "1620.0", Detail: true},
			{Label: labelNightFirst, Value: "300.0"},
			{Label: strings.TrimSpace(labelNightJudged), Value: "390.0", Detail: true},
		},
	})
}

func TestKeepUnmeasuredReplacesMeasuredPartsAndKeepsTheRest(t *testing.T) {
	merged, err := keepUnmeasured(fullRun(), durationsRun())
	if err != nil {
		t.Fatal(err)
	}
	page := merged.render()
	wantIn(t, "page", page,
		"Measured in 2 runs, newest first;",
		"Measured 2026-12-06 22:10 UTC at commit abc1234 by `go run ./orchestrator/cmd/kregress-bench -skip-cold -keep-unmeasured` on AMD EPYC, 2 cores;",
		"Host load while measuring: 1-minute load average median 3.0, max 5.0 on 2 cores (200 samples).\n",
		"Measured 2026-12-05 20:49 UTC by `go run ./orchestrator/cmd/kregress-bench -markdown docs/benchmarks.md -readme README.md` on AMD EPYC",
		"Host load while measuring: 1-minute load average median 16.1, max 19.8 on 2 cores (280 samples).\n",
		"| figure | value | measured |\n|---|---|---|\n"+
			"| cold build, stock (unpack + config + make, no ccache) | 733.4 | 2026-12-05 20:49 UTC |\n"+
			"| bisect of 8 commits (culprit 27fb2e8ae109), wall | 1529.0 | 2026-12-05 20:49 UTC |\n"+
			"| &nbsp;&nbsp;build time per tried commit | 173.4 | 2026-12-05 20:49 UTC |\n"+
			"| rerun, both variants cached | 0.30 | 2026-12-06 22:10 UTC |\n"+
			"| boot to SSH ready, 2 vCPUs, tcg (median of 3) (goal <= 2.5 under TCG) | 2.90 | 2026-12-06 22:10 UTC |\n"+
			"| default experiment, cached builds (10 cells x 10s) | 452.9 | 2026-12-05 20:49 UTC |\n",
		"| &nbsp;&nbsp;first run: done (its further boots and the debug pass included) | 1620.0 | 2026-12-06 22:10 UTC |\n",
		"\nBehind the figures measured 2026-12-05 20:49 UTC:\n\n- reads_per_sec per boot (a): 590.2 595.2\n",
	)
	// The boots part is replaced whole: no 8-vCPU row of the old run
	// stands beside the new run's 2-vCPU one, nor the old 2-vCPU details.
	for _, gone := range []string{"8 vCPUs", "CPUs online", "| 3.05 |", "| 0.26 |"} {
		if strings.Contains(page, gone) {
			t.Errorf("page keeps %q of a part this run measured:\n%s", gone, page)
		}
	}
	// It reads back as it was written.
	if back := mustParse(t, page); !reflect.DeepEqual(back, merged) {
		t.Errorf("page reads back as\n%+v\nwant\n%+v", back, merged)
	}
	// The README quotes each row with its run.
	block := durationsBlock(merged)
	wantIn(t, "block", block,
		"| what | how long | measured |\n|---|---|---|\n",
		"then the default experiment's boots | first verdict after 14.5 min, done after 27.0 min | 2026-12-06 22:10 UTC |\n",
		"| a later run of the default experiment, kernels cached (10 boots) | 7.5 min | 2026-12-05 20:49 UTC |\n",
		"| a night of one experiment, kernels cached | 5.0 min (the first, which becomes the baseline), 6.5 min (the next, judged) | 2026-12-06 22:10 UTC |\n",
		"| a bisect of 8 commits | 25.5 min (2.9 min to build each commit tried) | 2026-12-05 20:49 UTC |\n",
		"Quoted from [docs/benchmarks.md](docs/benchmarks.md), figures of 2 runs: measured 2026-12-06 22:10 UTC at commit abc1234 on AMD EPYC, 2 cores; measured 2026-12-05 20:49 UTC on AMD EPYC, 2 cores.\n",
	)
}

// A run that measures every part again leaves a page of that run alone,
// byte for byte the page a run without -keep-unmeasured writes; a run
// no row cites any more leaves the page.
func TestKeepUnmeasuredDropsRunsNoRowCites(t *testing.T) {
	merged, err := keepUnmeasured(mustParse(t, mustMerge(t, fullRun(), durationsRun()).render()), fullRunAgain())
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Gens) != 2 || merged.Gens[0].At != "2026-12-07 09:00 UTC" || merged.Gens[1].At != "2026-12-06 22:10 UTC" {
		t.Errorf("runs %+v, want the new run and the one the first run's rows cite", merged.Gens)
	}
	all := fullRunAgain()
	all.Figures = append(all.Figures, durationsRun().Figures[2:]...)
	merged, err = keepUnmeasured(merged, all)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := merged.render(), all.render(); got != want {
		t.Errorf("a run of every part did not write its own page:\n%s\nwant\n%s", got, want)
	}
}

func fullRunAgain() benchPage {
	p := fullRun()
	p.Gens[0].At = "2026-12-07 09:00 UTC"
	return p
}

func mustMerge(t *testing.T, old, now benchPage) benchPage {
	t.Helper()
	p, err := keepUnmeasured(old, now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKeepUnmeasuredRefusesWhatItCannotPlace(t *testing.T) {
	odd := fullRun()
	odd.Figures = append(odd.Figures, figureRow{Label: "warp drive, cold", Value: "1.0"})
	if _, err := keepUnmeasured(odd, durationsRun()); err == nil || !strings.Contains(err.Error(), `"warp drive, cold"`) {
		t.Errorf("an old row of no part: %v", err)
	}
	same := durationsRun()
	same.Gens[0].At = fullRun().Gens[0].At
	if _, err := keepUnmeasured(fullRun(), same); err == nil {
		t.Error("two runs of one minute were merged")
	}
}

// Every figure of the committed page belongs to a part, so a partial run
// can update it.
func TestCommittedPageUpdates(t *testing.T) {
	p, err := readPage("../../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keepUnmeasured(p, durationsRun()); err != nil {
		t.Fatal(err)
	}
}

// What make bench-durations does to the committed page and README: the
// page keeps every row of the parts it does not measure, with the run
// that measured them, and the README's block quotes both runs.
func TestDurationsRunUpdatesTheCommittedPageAndREADME(t *testing.T) {
	dir := t.TempDir()
	pagePath, readmePath := filepath.Join(dir, "benchmarks.md"), filepath.Join(dir, "README.md")
	for from, to := range map[string]string{"../../../docs/benchmarks.md": pagePath, "../../../README.md": readmePath} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	old, err := readPage(pagePath)
	if err != nil {
		t.Fatal(err)
	}
	now := durationsRun()
	merged := mustMerge(t, old, now)
	if err := writePage(pagePath, merged.render()); err != nil {
		t.Fatal(err)
	}
	if err := writeREADME(readmePath, pagePath); err != nil {
		t.Fatal(err)
	}
	back, err := readPage(pagePath)
	if err != nil {
		t.Fatal(err)
	}
	measuredNow := map[int]bool{}
	for _, f := range now.Figures {
		if !f.Detail {
			measuredNow[partOf(f.Label)] = true
		}
	}
	rows := map[string]figureRow{}
	for _, f := range back.Figures {
		rows[f.Label+" = "+f.Value] = f
	}
	part, bisectRun := -1, ""
	for _, f := range old.Figures {
		if !f.Detail {
			part = partOf(f.Label)
		}
		// The committed page may already hold several runs: each row
		// is weighed against the run it came from.
		was := old.Gens[f.Gen].At
		got, ok := rows[f.Label+" = "+f.Value]
		switch {
		case measuredNow[part] && ok && back.Gens[got.Gen].At == was:
			t.Errorf("%q: kept from the old run though this run measured its part", f.Label)
		case !measuredNow[part] && (!ok || back.Gens[got.Gen].At != was):
			t.Errorf("%q = %s: not kept with its run %s", f.Label, f.Value, was)
		}
		if strings.HasPrefix(f.Label, "bisect of ") {
			bisectRun = was
		}
	}
	if !reflect.DeepEqual(back.Details, merged.Details) || len(back.Details) != len(old.Details) {
		t.Errorf("lines behind the figures not kept: %d of %d", len(back.Details), len(old.Details))
	}
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, "README.md", string(readme),
		"| first verdict after 14.5 min, done after 27.0 min | "+now.Gens[0].At+" |\n",
		"| a bisect of 8 commits | 25.5 min (2.9 min to build each commit tried) | "+bisectRun+" |\n",
	)
}

// The committed page reads back to itself: what it says is what the
// generator would write from what it read, nothing dropped.
func TestCommittedPageRoundTrips(t *testing.T) {
	data, err := os.ReadFile("../../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := mustParse(t, string(data)).render(); got != string(data) {
		t.Errorf("docs/benchmarks.md renders back as\n%s", got)
	}
}

func TestParsePageRefusesOddPages(t *testing.T) {
	good := fullRun().render()
	several := mustMerge(t, fullRun(), durationsRun()).render()
	for name, text := range map[string]string{
		"not a page":             "hello\n",
		"no run":                 strings.Replace(good, "Measured 2026", "Taken 2026", 1),
		"run without command":    strings.Replace(good, "by `go run", "by go run", 1),
		"stray line in table":    strings.Replace(good, "| rerun,", "rerun,", 1),
		"row of three cells":     strings.Replace(good, "| 0.26 |", "| 0.26 | x |", 1),
		"row of an unknown run":  strings.Replace(several, "| 1529.0 | 2026-12-05 20:49 UTC |", "| 1529.0 | 2026-12-04 10:00 UTC |", 1),
		"three columns, one run": strings.Replace(good, "| figure | value |\n|---|---|", "| figure | value | measured |\n|---|---|---|", 1),
		"two columns, two runs":  strings.Replace(several, "| figure | value | measured |", "| figure | value |", 1),
		"second table":           good + "\n| figure | value |\n",
		"detail first":           strings.Replace(good, "| cold build", "| &nbsp;&nbsp;cold build", 1),
		"no figures":             good[:strings.Index(good, "| figure")],
		"too big":                good + strings.Repeat("x", maxPageBytes),
		"details of no run":      strings.Replace(several, "Behind the figures measured 2026-12-05 20:49 UTC:", "Behind the figures:", 1),
	} {
		if _, err := parsePage(text); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	// readPage names the file.
	path := filepath.Join(t.TempDir(), "benchmarks.md")
	if err := os.WriteFile(path, []byte("# Benchmarks\n\nMeasured yesterday\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := readPage(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("readPage of a bad page: %v", err)
	}
}

// Whatever parses renders to a page that parses to the same figures.
func FuzzParsePage(f *testing.F) {
	f.Add(fullRun().render())
	f.Add(mustMergeF(fullRun(), durationsRun()).render())
	f.Fuzz(func(t *testing.T, text string) {
		p, err := parsePage(text)
		if err != nil {
			return
		}
		back, err := parsePage(p.render())
		if err != nil {
			t.Fatalf("render of a parsed page does not parse: %v\n%s", err, p.render())
		}
		if !reflect.DeepEqual(back, p) {
			t.Fatalf("page changed on a round trip:\n%+v\n%+v", p, back)
		}
	})
}

func mustMergeF(old, now benchPage) benchPage {
	p, err := keepUnmeasured(old, now)
	if err != nil {
		panic(err)
	}
	return p
}

// wantIn fails t for each of wants that text, the name one, lacks.
func wantIn(t *testing.T, name, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", name, want, text)
		}
	}
}
