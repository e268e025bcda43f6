package agentproto

import (
	"bytes"
	"math"
	"testing"

	"github.com/kregress/kregress/internal/safetext"
)

// seedDocument is a document as kagent prints it, with every section.
func seedDocument() []byte {
	var b bytes.Buffer
	Encode(&b, seedDoc())
	return b.Bytes()
}

// seedDoc is seedDocument's document.
func seedDoc() *Document {
	return &Document{
		Schema: Schema, AgentVersion: "v1", Workload: "rstat", Params: map[string]string{"readers": "2"},
		Guest: Guest{KernelRelease: "6.12.57", CPUsOnline: 2, CPUsPossible: 2, MemTotalKB: 500000}, DurationSec: 10,
		Metrics: []Metric{
			{Name: "reads_per_sec", Unit: "reads/s", Direction: HigherIsBetter, Value: 1234.5},
			{Name: "rstat_lock_hold_p99_us", Unit: "us", Direction: LowerIsBetter, Value: 17.25},
			{Name: "oom_kills", Unit: "count", Direction: Informational, Value: 0},
		},
		Histograms: map[string]Histogram{"read_latency_us": {Unit: "us", Buckets: []uint64{0, 3, 9, 1}}},
		Irqsoff: &Irqsoff{WindowSec: 1, Worst: &Section{LatencyUS: 45341, CPU: 1, StartedAt: "_raw_spin_lock_irq", EndedAt: "cgroup_rstat_flush", Stack: []string{"memory_stat_show"}, Holder: "cgroup_rstat_flush"},
			Windows: []Section{{LatencyUS: 12, Holder: "x"}}, WorstTrace: "# latency: 45341 us\n => memory_stat_show\n"},
		LockHolds:   &LockHolds{Lock: "cgroup_rstat_lock", Count: 10, P50US: 5.5, P99US: 20, MaxUS: 21, Source: "tracepoints"},
		WindowRates: map[string][]float64{"reads_per_sec": {1200, 1250.5}},
		Warnings:    []string{"lost 3 events"},
		Unavailable: []Unavailable{{Metric: "rstat_lock_holds_readers", Reason: "no tracepoint cgroup:cgroup_rstat_locked"}},
	}
}

// FuzzDecode: any bytes decode without panic; a document that decodes has
// only finite numbers and no raw control character in any string, and
// encoding it gives a document that decodes to the same encoding.
func FuzzDecode(f *testing.F) {
	f.Add(seedDocument())
	f.Add([]byte(doc(`1e999`)))
	f.Add([]byte(doc(`"NaN"`)))
	f.Add([]byte(`{"schema":"kregress.agent/v1","workload":"w\u001b[31m","metrics":[{"name":"m\u009b","unit":"u","direction":"info","value":-0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode(data)
		if err != nil {
			return
		}
		for _, m := range d.Metrics {
			if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
				t.Fatalf("metric %q = %v", m.Name, m.Value)
			}
		}
		var enc bytes.Buffer
		if err := Encode(&enc, d); err != nil {
			t.Fatalf("a decoded document does not encode: %v", err)
		}
		checkClean(t, d, enc.String())
		d2, err := Decode(enc.Bytes())
		if err != nil {
			t.Fatalf("decode(encode(decode(x))): %v", err)
		}
		var enc2 bytes.Buffer
		Encode(&enc2, d2)
		if enc.String() != enc2.String() {
			t.Fatalf("encode is not a fixpoint:\n%s\n%s", enc.String(), enc2.String())
		}
	})
}

// checkClean: escaping d's strings once more changes nothing, so none
// of them holds a control character (Text fields: but newline and tab).
func checkClean(t *testing.T, d *Document, enc string) {
	t.Helper()
	safetext.Strings(d)
	var again bytes.Buffer
	Encode(&again, d)
	if again.String() != enc {
		t.Fatalf("a decoded document still had control characters:\n%s", enc)
	}
}

// FuzzDecodeSelftests: the selftests document, likewise.
func FuzzDecodeSelftests(f *testing.F) {
	f.Add([]byte(`{"schema":"kregress.selftests/v1","agent_version":"t","setup":["swap on"],"binaries":[{"name":"test_core","exit_code":1,"duration_sec":0.2,"output":"ok 1 a\nnot ok 2 b\n"}],
		"results":[{"binary":"test_core","name":"a","outcome":"pass"},{"binary":"test_core","name":"b","outcome":"fail","detail":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeSelftests(data)
		if err != nil {
			return
		}
		for _, r := range d.Results {
			if !safetext.Clean(r.Binary + r.Name + r.Detail + r.Outcome) {
				t.Fatalf("raw control character in %+v", r)
			}
		}
		for _, b := range d.Binaries {
			if !safetext.Clean(b.Name) || safetext.Text(b.Output) != b.Output {
				t.Fatalf("raw control character in binary %q", b.Name)
			}
		}
	})
}
