package compare_test

import (
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
)

// update: KREGRESS_UPDATE_GOLDEN=1 rewrites docs/verdict.md's verdict
// table from compare.HeadlineCases (the one switch of every golden file).
var update = os.Getenv("KREGRESS_UPDATE_GOLDEN") != ""

const (
	verdictDoc   = "../../docs/verdict.md"
	beginVerdict = "<!-- verdict table: generated from results/compare/headline.go by `KREGRESS_UPDATE_GOLDEN=1 go test ./results/compare -run TestVerdictTableIsGenerated`; edit HeadlineCases -->\n\n"
	endVerdict   = "<!-- end of verdict table -->\n"
)

// TestVerdictTableIsGenerated: docs/verdict.md's verdict table is
// compare.HeadlineMarkdown(), so the page quotes the headline's own
// words; with KREGRESS_UPDATE_GOLDEN=1 the test rewrites the page's table instead.
func TestVerdictTableIsGenerated(t *testing.T) {
	page, err := os.ReadFile(verdictDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	begin := strings.Index(text, beginVerdict)
	end := strings.Index(text[max(begin, 0):], endVerdict) + max(begin, 0)
	if begin < 0 || end < begin+len(beginVerdict) {
		t.Fatalf("%s lacks the verdict table's markers:\n%s%s", verdictDoc, beginVerdict, endVerdict)
	}
	want := compare.HeadlineMarkdown() + "\n"
	got := text[begin+len(beginVerdict) : end]
	if got == want {
		return
	}
	if update {
		if err := os.WriteFile(verdictDoc, []byte(text[:begin+len(beginVerdict)]+want+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s's verdict table differs from compare.HeadlineMarkdown() (KREGRESS_UPDATE_GOLDEN=1 go test ./results/compare -run TestVerdictTableIsGenerated rewrites it):\n--- page\n%s\n--- code\n%s", verdictDoc, got, want)
}

// formPattern matches a line of format f: each verb stands for any text.
func formPattern(f string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i, part := range regexp.MustCompile(`%[.0-9]*[dsgf]`).Split(f, -1) {
		if i > 0 {
			b.WriteString(".*")
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// headlineFixtures builds, for each of compare.HeadlineCases, a diff whose
// headline is that case.
func headlineFixtures(t *testing.T) map[int]*compare.Diff {
	t.Helper()
	ok := results.StatusOK
	diff := func(rs []*results.Result) *compare.Diff {
		d, err := compare.Compare(rs, "a", compare.Options{Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// shifted is n cells of variant with reads 1000*r and hold 10*h, each
	// boot a little apart from the last.
	shifted := func(variant string, n int, r, h float64) []*results.Result {
		var rs []*results.Result
		for i := 0; i < n; i++ {
			rs = append(rs, comparetest.Res(variant, ok, 1000*r+float64(i), 10*h+0.01*float64(i), "x"))
		}
		return rs
	}
	groups := func(a, b []*results.Result) *compare.Diff {
		d, err := compare.CompareGroups([]compare.Group{{Label: "a", Results: a}, {Label: "b", Results: b}},
			compare.Options{Alpha: 0.05, DefaultPrimary: []string{"rstat_lock_hold_p50_us"}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	out := map[int]*compare.Diff{
		compare.CaseRegressions: diff(append(shifted("a", 8, 1, 1), shifted("b", 8, 1, 3)...)),
		// More reads, longer holds: a trade.
		compare.CaseRegressionsImproved: diff(append(shifted("a", 8, 1, 1), shifted("b", 8, 2, 3)...)),
		compare.CaseFlagged: diff(append(shifted("a", 8, 1, 1), comparetest.WithFinding(shifted("b", 8, 1, 1),
			results.Finding{Kind: results.FindingWarning, Title: "WARNING in css_rstat_flush", Count: 1})...)),
		compare.CaseUnmeasured: diff(append(shifted("a", 8, 1, 1), comparetest.Cells("b", results.StatusInfra, 8)...)),
		compare.CaseImproved:   diff(append(shifted("a", 8, 1, 1), shifted("b", 8, 2, 0.5)...)),
		compare.CaseNoChange:   diff(append(shifted("a", 8, 1, 1), shifted("b", 8, 1, 1)...)),
	}
	rng := rand.New(rand.NewPCG(55, 1))
	out[compare.CaseUnjudged] = groups(secondaryNight(rng, "x", 1000, 100), secondaryNight(rng, "x", 1000, 100))
	// Tight secondary metrics, not judged at 5+5 and not seen to move;
	// the second with its primary metric ten times lower (an improvement
	// a family of one can prove at 5+5).
	for try := 0; try < 50 && (out[compare.CaseNotJudged] == nil || out[compare.CaseNotJudgedImproved] == nil); try++ {
		a, b := secondaryNightSpread(rng, "x", 1000, 100, 0.05), secondaryNightSpread(rng, "x", 1000, 100, 0.05)
		if d := groups(a, b); d.HeadlineCase() == compare.CaseNotJudged {
			out[compare.CaseNotJudged] = d
		}
		for _, r := range b {
			r.Metrics[0].Value /= 10
		}
		if d := groups(a, b); d.HeadlineCase() == compare.CaseNotJudgedImproved {
			out[compare.CaseNotJudgedImproved] = d
		}
	}
	return out
}

// TestEveryHeadlineCaseIsReached: each case of compare.HeadlineCases (the
// rows of docs/verdict.md's table) is what Headline prints for a diff
// built for it, its words match the case's format, and the gate exits
// with the case's exit code.
func TestEveryHeadlineCaseIsReached(t *testing.T) {
	fixtures := headlineFixtures(t)
	for c, hc := range compare.HeadlineCases {
		d := fixtures[c]
		if d == nil {
			t.Errorf("case %d (%q): no diff reaches it", c, hc.Format)
			continue
		}
		head := d.Headline()
		if got := d.HeadlineCase(); got != c {
			t.Errorf("case %d (%q): the diff built for it is case %d: %q", c, hc.Format, got, head)
			continue
		}
		if !formPattern(hc.Format).MatchString(head) {
			t.Errorf("case %d: headline %q does not read as %q", c, head, hc.Format)
		}
		v, _ := compare.Gate(false, d)
		if v.Exit() != hc.Exit {
			t.Errorf("case %d (%q): gate %s exits %d, the table says %d", c, head, v, v.Exit(), hc.Exit)
		}
	}
}

// The check above fails on a case whose words or exit code the table
// misstates.
func TestHeadlineCaseCheckCatchesDrift(t *testing.T) {
	if formPattern("%d significant regression(s): %s").MatchString("FLAGGED (below: new kernel reports or selftest failures)") {
		t.Fatal("a FLAGGED line read as N significant regression(s)")
	}
	if !formPattern("UNJUDGED — %s").MatchString("UNJUDGED — primary m: too few boots") {
		t.Fatal("an UNJUDGED line did not read as its own form")
	}
}
