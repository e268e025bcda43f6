package format_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

// A 3+3 comparison with a x10 change: the smallest p is 0.1, so the metric
// is unjudged, shown as such in every format, and never "~".
func TestThreeBootsAreUnjudged(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	d, err := compare.Compare(comparetest.NullRun(rng, 1, 3, 1, 0.05, 10), "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Metrics["cand1"][0]; m.Verdict != verdict.Unjudged {
		t.Fatalf("3+3, x10: verdict %s, want unjudged", m.Verdict)
	}
	u := d.Unjudged()
	if len(u) != 1 || !strings.Contains(u[0], "4 per side would reach it") {
		t.Fatalf("Unjudged() = %q: must name the n that would reach alpha", u)
	}
	for _, f := range []format.Format{format.Table, format.Markdown, format.JSON, format.CSV} {
		var b strings.Builder
		if err := format.WriteDiff(&b, d, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ToLower(b.String()), "unjudged") {
			t.Errorf("format %s does not say unjudged:\n%s", f, b.String())
		}
		if strings.Contains(b.String(), "no significant change") {
			t.Errorf("format %s says no significant change of an unjudged comparison", f)
		}
	}
	var md strings.Builder
	if err := format.WriteDiff(&md, d, format.Markdown); err != nil || !strings.Contains(md.String(), "\n**Verdict:** UNJUDGED — cand1:") {
		t.Errorf("markdown's unjudged line (%v):\n%s", err, md.String())
	}
}

// The family warning says the truth: several metrics changing together
// can still reach alpha, one alone cannot.
func TestFamilyWarningSaysNoSingleMetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 3))
	d, err := compare.Compare(comparetest.NullRun(rng, 1, 5, 9, 0.05, 1), "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	format.WriteDiff(&b, d, format.Table)
	if !strings.Contains(b.String(), "no single metric can reach alpha") {
		t.Fatalf("5+5 over 9 metrics: the warning does not say no single metric can reach alpha:\n%s", b.String())
	}
}

// The power line: a deciding metric found unchanged says what the run
// could have seen; an unjudged one never gets one.
func TestPowerLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 5))
	d, err := compare.Compare(comparetest.NullRun(rng, 1, 8, 3, 0.03, 1), "base", compare.Options{Primary: []string{"m0"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := d.PowerLines()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "m0: no change; this run could see >= ") {
		t.Fatalf("power lines %q", lines)
	}
	var b strings.Builder
	format.WriteDiff(&b, d, format.Table)
	if !strings.Contains(b.String(), "m0: no change; this run could see >= ") {
		t.Fatalf("the table's verdict lacks the power line:\n%s", b.String())
	}
}
