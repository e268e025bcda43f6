package pipeline

import (
	"fmt"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format/num"
)

// SummaryLine is a cell's one-line outcome for progress output.
func SummaryLine(r *results.Result) string {
	if !r.Status.OK() {
		return ": " + lines.First(r.Error)
	}
	// The workload's first two judged metrics (each workload reports its
	// headline first), then the irqs-off worst, with the digits every
	// table gives them: a benchmark's seconds are not rounded to whole
	// ones.
	var parts []string
	n := 0
	for _, m := range r.Metrics {
		if m.Direction != agentproto.Informational && n < 2 && m.Name != "irqsoff_worst_us" {
			parts = append(parts, m.Name+"="+num.Number(m.Value))
			n++
		}
	}
	for _, m := range r.Metrics {
		if m.Name == "irqsoff_worst_us" {
			parts = append(parts, m.Name+"="+num.Number(m.Value))
		}
	}
	if len(r.Selftests) > 0 {
		parts = append(parts, selftestSummary(r.Selftests, selftests.KnownFailures(), compare.Release(r.Provenance.GuestKernel), r.Provenance.Clock))
	}
	if r.IrqsoffHolder != "" {
		parts = append(parts, "worst held by "+r.IrqsoffHolder)
	}
	return " " + strings.Join(parts, " ")
}

// selftestSummary counts the tests that did not pass and names those no
// diagnosis in known.yaml explains, so that whoever watches a run sees a
// new failure when its cell ends rather than at the gate's verdict.
func selftestSummary(results []agentproto.SelftestResult, known map[string]compare.KnownFailure, release, clock string) string {
	fails, flaky := 0, 0
	var unexplained []string
	for _, st := range results {
		switch st.Outcome {
		case agentproto.SelftestFail, agentproto.SelftestError, agentproto.SelftestTimeout:
			fails++
			if kf, ok := known[st.Key()]; !ok || !kf.AppliesTo(release, clock) {
				unexplained = append(unexplained, st.Key())
			}
		case agentproto.SelftestFlaky:
			flaky++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "selftests=%d (%d not passing", len(results), fails)
	switch {
	case fails > 0 && len(unexplained) == 0:
		b.WriteString(", all known")
	case len(unexplained) > 0:
		const named = 3
		fmt.Fprintf(&b, ", %d unexplained: %s", len(unexplained), strings.Join(unexplained[:min(named, len(unexplained))], " "))
		if len(unexplained) > named {
			b.WriteString(" ...")
		}
	}
	if flaky > 0 {
		fmt.Fprintf(&b, ", %d flaky: failed, then passed on a rerun", flaky)
	}
	b.WriteString(")")
	return b.String()
}
