package htmlreport

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/internal/chromium"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
)

func groups() []compare.Group {
	mk := func(variant string, i int, shift float64) *results.Result {
		doc := fmt.Sprintf(`{"histograms":{"read_latency_us":{"unit":"us","buckets":[0,0,0,0,5,%d,%d,3]}},"irqsoff":{"windows":[{"latency_us":%d,"holder":"handle_softirqs","cpu":0,"started_at":"a","ended_at":"b"},{"latency_us":%d,"holder":"cgroup_rstat_flush","cpu":1,"started_at":"a","ended_at":"b"}]}}`,
			40+int(shift)*30, 60-int(shift)*30, 100+i*10, 300+i*7-int(shift)*200)
		return &results.Result{Variant: variant, Status: results.StatusOK, Document: []byte(doc), IrqsoffHolder: "cgroup_rstat_flush", IrqsoffWorstUS: 300,
			Metrics: []agentproto.Metric{
				{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 2400 + float64(i*13%50) + 100*shift},
				{Name: "rstat_lock_hold_p99_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 52 - 20*shift + float64(i%3)},
				{Name: "oom_kills", Unit: "kills", Direction: agentproto.Informational, Value: 3},
			}}
	}
	var a, b []*results.Result
	for i := 0; i < 6; i++ {
		a = append(a, mk("stock", i, 0))
		b = append(b, mk("per-cpu-relock", i, 1))
	}
	// The selftest gate: one test fails only in the candidate.
	a[0].Selftests = []agentproto.SelftestResult{{Binary: "test_core", Name: "test_cgcore_populated", Outcome: agentproto.SelftestPass}}
	b[0].Selftests = []agentproto.SelftestResult{{Binary: "test_core", Name: "test_cgcore_populated", Outcome: agentproto.SelftestFail}}
	return []compare.Group{{Label: "stock", Results: a}, {Label: "per-cpu-relock", Results: b}}
}

func render(t *testing.T) []byte {
	return renderGroups(t, groups(), Input{Title: "kregress run 1: rstat-relock", Notes: []string{"accel tcg"}})
}

// renderGroups compares gs and renders the page of in with that diff.
func renderGroups(t *testing.T, gs []compare.Group, in Input) []byte {
	t.Helper()
	d, err := compare.CompareGroups(gs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in.Diff, in.Groups = d, gs
	var buf bytes.Buffer
	if err := Render(&buf, in); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPageIsSelfContained(t *testing.T) {
	page := string(render(t))
	for _, want := range []string{"<svg", "per-cpu-relock", "rstat_lock_hold_p99_us", "improvement", "read latency", "cgroup_rstat_flush",
		"selftests (correctness gate)", "DIFFERS", "test_core/test_cgcore_populated: pass -&gt; fail"} {
		if !strings.Contains(page, want) {
			t.Fatalf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://cdn", "https://"} {
		if strings.Contains(page, bad) {
			t.Fatalf("page is not self-contained: has %q", bad)
		}
	}
	if strings.Contains(page, "oom_kills (kills), ") {
		t.Fatal("informational metric got a plot")
	}
}

// TestPlotsRenderInChromium loads the page in real headless Chromium and
// checks the screenshot shows the plots: pixels in the baseline's and the
// candidate's colours, not a blank page.
func TestPlotsRenderInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts headless Chromium")
	}
	img := chromium.Screenshot(t, render(t), 1100, 2200)
	// Boxes are 85% opaque on white, histogram bars fully opaque.
	blue, orange := [3]uint32{0x4e, 0x79, 0xa7}, [3]uint32{0xf2, 0x8e, 0x2b}
	nb, no := chromium.Count(img, blue, 1, 0.85), chromium.Count(img, orange, 1, 0.85)
	t.Logf("screenshot %dx%d: %d baseline-coloured, %d candidate-coloured pixels", img.Bounds().Dx(), img.Bounds().Dy(), nb, no)
	if nb < 2000 || no < 2000 {
		t.Fatalf("plots did not render: %d baseline and %d candidate pixels", nb, no)
	}
}

// A candidate whose every cell was infra_error has no metric row: the
// page must say it was unmeasured, never leave it looking passed.
func TestPageSaysUnmeasured(t *testing.T) {
	gs := groups()
	for _, r := range gs[1].Results {
		r.Status, r.Metrics, r.Document, r.Selftests = results.StatusInfra, nil, nil, nil
	}
	page := string(renderGroups(t, gs, Input{Title: "t"}))
	if !strings.Contains(page, `<p class="unmeasured">unmeasured: per-cpu-relock: no cell says anything about its kernel`) || strings.Contains(page, "no significant change") {
		t.Fatalf("page does not say the candidate was unmeasured:\n%s", page)
	}
}

// A metric the kernel cannot produce is missing from the table; the page
// says which, for which set and why, as the text table does.
func TestPageSaysUnavailable(t *testing.T) {
	gs := groups()
	const reason = "unavailable on this kernel: no tracepoint cgroup:cgroup_rstat_locked"
	for _, r := range gs[1].Results {
		r.Document = []byte(`{"unavailable":[{"metric":"rstat_lock_hold_p99_us","reason":"` + reason + `"}]}`)
	}
	page := string(renderGroups(t, gs, Input{Title: "t"}))
	if want := "<li>per-cpu-relock: " + reason + ": rstat_lock_hold_p99_us</li>"; !strings.Contains(page, want) {
		t.Fatalf("page lacks %q", want)
	}
}

// few keeps the first n cells of each set: too few boots for any metric
// to reach alpha.
func few(n int) []compare.Group {
	gs := groups()
	for i := range gs {
		gs[i].Results = gs[i].Results[:n]
	}
	return gs
}

// Every judged row shows q beside p: the verdict is taken on q.
func TestRowsShowQBesideP(t *testing.T) {
	gs := groups()
	d, err := compare.CompareGroups(gs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := string(renderGroups(t, gs, Input{Title: "t"}))
	if !strings.Contains(page, "<th>p</th><th>q</th>") {
		t.Fatal("the table has no q column beside p")
	}
	for _, m := range d.Metrics["per-cpu-relock"] {
		want := fmt.Sprintf("<td>%.3f</td><td>%.3f</td>", m.P, m.Q)
		if m.Verdict == "info" {
			want = "<td>-</td><td>-</td>"
		}
		if !strings.Contains(page, want) {
			t.Errorf("%s: page lacks its p and q %q", m.Name, want)
		}
	}
}

// An unjudged row says why (n, family, the smallest q against alpha) and
// what would judge it: the command that adds the boots when the diff is
// of one stored run, else how many boots.
func TestUnjudgedRowSaysWhyAndWhatWouldJudgeIt(t *testing.T) {
	// 3+3 boots, two judged metrics: the smallest p is 2/C(6,3) = 0.1,
	// its q 0.2 > 0.05; 5+5 (2/C(10,5) * 2 = 0.016) reaches it, 4+4
	// (2/C(8,4) * 2 = 0.057) does not.
	const why = "n=3+3 in a family of 2: the smallest q reachable is 0.200 > alpha 0.05; 5 boots per side would judge it"
	page := html.UnescapeString(string(renderGroups(t, few(3), Input{Title: "t", RunID: 7})))
	if n := strings.Count(page, `<div class="why">`+why+": kregress run --resume 7 --repetitions 5</div>"); n != 2 {
		t.Fatalf("%d unjudged rows say why and the command that would judge them, want 2:\n%s", n, page)
	}
	page = html.UnescapeString(string(renderGroups(t, few(3), Input{Title: "t"})))
	if n := strings.Count(page, `<div class="why">`+why+"</div>"); n != 2 || strings.Contains(page, "--resume") {
		t.Fatalf("without a run: %d rows say why and the boots, want 2 (and no command):\n%s", n, page)
	}
	// A judged row has nothing to explain.
	if page := string(render(t)); strings.Contains(page, `class="why"`) {
		t.Fatal("a judged row says why it was unjudged")
	}
}

// The verdict heading is the terminal's verdict line, word for word,
// whatever the verdict: never "no significant change" on the page while
// the terminal says UNJUDGED, nor the other way round.
func TestVerdictHeadingIsTheTerminalsLine(t *testing.T) {
	for name, gs := range map[string][]compare.Group{"judged": groups(), "unjudged": few(3)} {
		d, err := compare.CompareGroups(gs, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var table bytes.Buffer
		if err := format.WriteDiff(&table, d, format.Table); err != nil {
			t.Fatal(err)
		}
		line := ""
		for _, l := range strings.Split(table.String(), "\n") {
			if strings.HasPrefix(l, "verdict: ") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("%s: the table has no verdict line:\n%s", name, table.String())
		}
		page := string(renderGroups(t, gs, Input{Title: "t"}))
		i := strings.Index(page, `<h2 class="verdict`)
		if i < 0 {
			t.Fatalf("%s: the page has no verdict heading", name)
		}
		heading := page[i:]
		heading = heading[strings.Index(heading, ">")+1 : strings.Index(heading, "</h2>")]
		if heading = html.UnescapeString(heading); heading != line {
			t.Errorf("%s: the page's verdict heading\n  %s\nis not the terminal's line\n  %s", name, heading, line)
		}
	}
}

// issueNight is 5 boots shaped as the rstat workload's night: the
// primary flat, reads/s and read latency p50 around the given medians,
// eight more secondary metrics without change.
func issueNight(variant string, reads, latency float64) []*results.Result {
	var rs []*results.Result
	for i := 0; i < 5; i++ {
		k := 0.96 + 0.02*float64(i)
		r := &results.Result{Variant: variant, Repetition: i + 1, Status: results.StatusOK, Metrics: []agentproto.Metric{
			{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 6.6 * (0.8 + 0.1*float64((i*3)%5))},
			{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: reads * k},
			{Name: "read_latency_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: latency * k},
		}}
		for j, name := range []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"} {
			r.Metrics = append(r.Metrics, agentproto.Metric{Name: name, Unit: "us", Direction: agentproto.LowerIsBetter, Value: 100 * (0.8 + 0.1*float64((i+j)%5))})
		}
		rs = append(rs, r)
	}
	return rs
}

// The issue's two nights: reads/s 3234 -> 1179 and read latency p50
// 150 -> 503 us in every boot, 5+5, the primary flat. The page's heading
// says UNJUDGED as the terminal does (it said "no significant change"),
// and each of those rows says why and the boots that would judge it.
func TestIssueNightsPageIsUnjudged(t *testing.T) {
	gs := []compare.Group{{Label: "1/tip", Results: issueNight("tip", 3234, 150)}, {Label: "2/tip", Results: issueNight("tip", 1179, 503)}}
	d, err := compare.CompareGroups(gs, compare.Options{Alpha: 0.05, DefaultPrimary: []string{"rstat_lock_hold_p50_us"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, Input{Title: "t", Diff: d, Groups: gs, RunID: 2}); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(buf.String())
	if !strings.Contains(page, `<h2 class="verdict unjudged">verdict: UNJUDGED`) || strings.Contains(page, "no significant change") {
		t.Fatalf("the page's verdict is not UNJUDGED:\n%s", page)
	}
	// Secondary metrics: a family of 10 at the rest of alpha, 0.01; the
	// smallest q at 5+5 is 2/C(10,5)*10 = 0.079; 7+7 reaches
	// 2/C(14,7)*10 = 0.0058, 6+6 (0.022) does not.
	const why = `<div class="why">n=5+5 in a family of 10: the smallest q reachable is 0.079 > alpha 0.01; 7 boots per side would judge it: kregress run --resume 2 --repetitions 7</div>`
	for _, name := range []string{"reads_per_sec", "read_latency_p50_us"} {
		i := strings.Index(page, "<td class=\"l\">"+name+" (")
		if i < 0 {
			t.Fatalf("no row of %s", name)
		}
		row := page[i : i+strings.Index(page[i:], "</tr>")]
		if !strings.Contains(row, "too-few"+why) {
			t.Errorf("%s's row does not say why it is unjudged and what would judge it:\n%s", name, row)
		}
	}
}

// The page says, as every diff output does, that the sides ran at unlike
// host loads on the host's clock, and why the lock hold's row is not a
// regression.
func TestPageSaysHostLoadDiffered(t *testing.T) {
	rs := comparetest.LoadedHost("host", 2, 1, 8, 1.2, 1, 10)
	gs := []compare.Group{{Label: "base", Results: results.OfVariant(rs, "base")}, {Label: "cand", Results: results.OfVariant(rs, "cand")}}
	page := html.UnescapeString(string(renderGroups(t, gs, Input{Title: "loaded"})))
	for _, want := range []string{"note: host load differed", "load 1.0 on 2 cores", "vm.clock icount", "not called a regression: the sides ran at unlike host loads"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
