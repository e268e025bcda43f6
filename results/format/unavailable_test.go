package format_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
)

// Metrics the agent reported unavailable (a 6.1 kernel has no rstat lock
// tracepoints) are listed under the table with their reason, once per
// variant however many cells said so; they are not judged, and the
// verdict is taken on the metrics that were measured.
func TestUnavailableShownNotJudged(t *testing.T) {
	const reason = "unavailable on this kernel: no tracepoint cgroup:cgroup_rstat_locked, no tracepoint cgroup:cgroup_rstat_unlock"
	rs := comparetest.Unavailable(reason, 5)
	d, err := compare.Compare(rs, "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range d.Variants {
		if len(v.Unavailable) != 2 || v.Unavailable[0].Metric != "rstat_lock_hold_p50_us" {
			t.Fatalf("%s unavailable %+v: want the two metrics once each", v.Name, v.Unavailable)
		}
	}
	for _, m := range d.Metrics["patched"] {
		if strings.HasPrefix(m.Name, "rstat_lock") {
			t.Errorf("unavailable metric %s in the judged table", m.Name)
		}
	}
	var b strings.Builder
	format.WriteDiff(&b, d, format.Table)
	want := "patched              " + reason + ": rstat_lock_hold_p50_us, rstat_lock_hold_p99_us"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "not measured (the kernel cannot produce them") {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
	if !strings.Contains(b.String(), "verdict: no significant change") {
		t.Errorf("verdict should be taken on the measured metrics:\n%s", b.String())
	}
	// Every output format says it, not only the table.
	b.Reset()
	if err := format.WriteDiff(&b, d, format.Markdown); err != nil {
		t.Fatal(err)
	}
	if want := "- `patched`: " + reason + ": rstat_lock_hold_p50_us, rstat_lock_hold_p99_us"; !strings.Contains(b.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	if err := format.WriteDiff(&b, d, format.JSON); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Sets []struct {
			Name        string                   `json:"name"`
			Unavailable []agentproto.Unavailable `json:"unavailable"`
		} `json:"sets"`
	}
	if err := json.Unmarshal([]byte(b.String()), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Sets) != 2 || len(js.Sets[1].Unavailable) != 2 || js.Sets[1].Unavailable[1].Reason != reason {
		t.Errorf("JSON sets %+v: want each set's unavailable metrics with the reason", js.Sets)
	}
}
