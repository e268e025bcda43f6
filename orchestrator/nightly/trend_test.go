package nightly

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/trendreport"
)

// A night measured again in the grey zone is one night on the trend
// page, its looks' boots pooled: two nights, the second with a look,
// are "2 nights" (the page said "3 nights"), and a third night makes 3.
func TestTrendCountsNightsNotLooks(t *testing.T) {
	n, _ := newNight(t)
	ctx := context.Background()
	n.GreyUpper = 1 // everything not significant is grey: the second night looks twice
	first := n.Run(ctx, "rstat-every-n")
	second := n.Run(ctx, "rstat-every-n")
	if len(first.RunIDs) != 1 || len(second.RunIDs) != 2 {
		t.Fatalf("runs %v and %v: want one look, then two", first.RunIDs, second.RunIDs)
	}
	page := nightPage(t, second)
	night, look := second.RunIDs[0], second.RunIDs[1]
	if want := fmt.Sprintf("2 nights; 1 with a grey-zone look (run %d, pooled into the night of run %d)", look, night); !strings.Contains(page, want) {
		t.Fatalf("page lacks %q:\n%s", want, page)
	}
	if strings.Contains(page, "3 nights") {
		t.Fatal("a grey-zone look counted as a night")
	}
	// The look is recorded with its run, so later nights pool it too.
	marks, err := n.Store.Marks(ctx, look)
	if err != nil || !slices.ContainsFunc(marks, func(m results.Mark) bool { return m.Kind == results.MarkLook }) {
		t.Fatalf("the look's run %d is marked %+v (%v), want a look mark", look, marks, err)
	}
	// The night's point is the median of both looks' boots.
	var both []*results.Result
	for _, id := range second.RunIDs {
		rs, err := n.Store.Results(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		both = append(both, rs...)
	}
	tr := trendOf(t, second, "per-cpu-relock", "rstat_lock_hold_p99_us")
	want, _ := metricMedian(results.OfVariant(both, "per-cpu-relock"), "rstat_lock_hold_p99_us")
	if p := tr.Points[1]; p.RunID != night || p.Value != want || len(p.Looks) != 1 || p.Looks[0] != look {
		t.Fatalf("the second night's point %+v, want run %d, look %d, the median of both looks %g", p, night, look, want)
	}
	n.GreyUpper, n.ExtraRounds = 0.2, 0
	third := n.Run(ctx, "rstat-every-n")
	if page := nightPage(t, third); !strings.Contains(page, "3 nights; 1 with a grey-zone look") {
		t.Fatalf("third night: the page does not count 3 nights:\n%s", page)
	}
}

func nightPage(t *testing.T, r *nightreport.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := format.WriteNightHTML(&b, []*nightreport.Result{r}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func trendOf(t *testing.T, r *nightreport.Result, variant, metric string) trendreport.Trend {
	t.Helper()
	for _, tr := range r.Trends {
		if tr.Variant == variant && tr.Metric == metric {
			return tr
		}
	}
	t.Fatalf("no trend of %s %s in %+v", variant, metric, r.Trends)
	return trendreport.Trend{}
}
