package agentproto

import (
	"bytes"
	"strings"
	"testing"
)

// TestDecodeRefusesBadMetricNames: a metric the guest names outside the
// one character set of names (a comma, '|', HTML, a formula, a control
// character) makes the document bad output, naming the metric.
func TestDecodeRefusesBadMetricNames(t *testing.T) {
	for _, name := range []string{"x,y", "m|<b>", "=HYPERLINK(1)", "reads\x1b[31m", "a b"} {
		for _, unavailable := range []bool{false, true} {
			d := &Document{Schema: Schema, Workload: "rstat", Metrics: []Metric{{Name: "ok", Unit: "u", Direction: LowerIsBetter, Value: 1}}}
			if unavailable {
				d.Unavailable = []Unavailable{{Metric: name, Reason: "r"}}
			} else {
				d.Metrics = append(d.Metrics, Metric{Name: name, Unit: "u", Direction: LowerIsBetter, Value: 1})
			}
			var b bytes.Buffer
			if err := Encode(&b, d); err != nil {
				t.Fatal(err)
			}
			if _, err := Decode(b.Bytes()); err == nil || !strings.Contains(err.Error(), "metric name") {
				t.Errorf("metric %q (unavailable %v): %v, want refused", name, unavailable, err)
			}
		}
	}
}
