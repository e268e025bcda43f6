package agentproto

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func doc(value string) string {
	return `{"schema":"kregress.agent/v1","workload":"rstat","metrics":[{"name":"ok_metric","unit":"u","direction":"lower","value":1},` +
		`{"name":"reads_per_sec","unit":"reads/s","direction":"higher","value":` + value + `}]}`
}

// A hostile guest cannot hand the statistics a value that is not a finite
// number, and the error names the metric.
func TestDecodeRefusesNonFiniteValues(t *testing.T) {
	// Not JSON at all: refused by the syntax check, before any metric.
	for _, v := range []string{`NaN`, `Infinity`, `0x10`, `+1`} {
		if _, err := Decode([]byte(doc(v))); err == nil {
			t.Errorf("value %s accepted", v)
		}
	}
	for _, v := range []string{`1e999`, `-1e999`, `"NaN"`, `"Inf"`, `null`, `true`, `"1"`, `[1]`, `{}`,
		"1" + strings.Repeat("0", 100)} {
		_, err := Decode([]byte(doc(v)))
		if err == nil || !strings.Contains(err.Error(), `metric "reads_per_sec"`) {
			t.Errorf("value %s: err %v, want an error naming reads_per_sec", v, err)
		}
	}
	// A missing value is not a silent zero.
	_, err := Decode([]byte(`{"schema":"kregress.agent/v1","workload":"rstat","metrics":[{"name":"m","unit":"u","direction":"lower"}]}`))
	if err == nil || !strings.Contains(err.Error(), `metric "m": no value`) {
		t.Errorf("missing value: %v", err)
	}
	// Unknown fields inside a metric are still refused.
	_, err = Decode([]byte(`{"schema":"kregress.agent/v1","workload":"rstat","metrics":[{"name":"m","unit":"u","direction":"lower","value":1,"x":2}]}`))
	if err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("unknown metric field: %v", err)
	}
	for _, v := range []string{`1.5`, `-2`, `0`, `1e308`, `5e-324`} {
		d, err := Decode([]byte(doc(v)))
		if err != nil {
			t.Fatalf("value %s: %v", v, err)
		}
		if m, _ := d.Metric("reads_per_sec"); math.IsInf(m.Value, 0) || math.IsNaN(m.Value) {
			t.Fatalf("value %s decoded as %v", v, m.Value)
		}
	}
}

// A document built in Go (not from JSON) with NaN is refused too.
func TestCheckFinite(t *testing.T) {
	d := &Document{Metrics: []Metric{{Name: "m", Value: math.NaN()}}}
	if err := d.checkFinite(); err == nil || !strings.Contains(err.Error(), `"m"`) {
		t.Fatalf("NaN metric: %v", err)
	}
	d = &Document{WindowRates: map[string][]float64{"r": {1, math.Inf(1)}}}
	if err := d.checkFinite(); err == nil {
		t.Fatal("Inf window rate accepted")
	}
}

// Every string the guest sends comes out with its control characters
// escaped, whatever field it is in; the trace keeps its newlines.
func TestDecodeEscapesControlCharacters(t *testing.T) {
	in := &Document{
		Schema: Schema, AgentVersion: "v\x1b[2J", Workload: "rstat", Params: map[string]string{"k\x1b": "v\u009b"},
		Guest:   Guest{KernelRelease: "6.12\x1b]0;title\x07"},
		Metrics: []Metric{{Name: "reads", Unit: "u\r", Direction: LowerIsBetter, Value: 1}},
		Irqsoff: &Irqsoff{
			Worst:      &Section{Holder: "\x1b[31mevil", Stack: []string{"f\x1b"}},
			Windows:    []Section{{Holder: "w\u202e"}},
			WorstTrace: "line1\nline2\x1b[0m",
		},
		Warnings: []string{"lost\x1b[1A"},
	}
	var b bytes.Buffer
	if err := Encode(&b, in); err != nil {
		t.Fatal(err)
	}
	d, err := Decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join([]string{d.AgentVersion, d.Params[`k\x1b`], d.Guest.KernelRelease, d.Metrics[0].Name, d.Metrics[0].Unit,
		d.Irqsoff.Worst.Holder, d.Irqsoff.Worst.Stack[0], d.Irqsoff.Windows[0].Holder, d.Irqsoff.WorstTrace, d.Warnings[0]}, "|")
	want := `v\x1b[2J|v\u009b|6.12\x1b]0;title\x07|reads|u\r|\x1b[31mevil|f\x1b|w\u202e|` + "line1\nline2" + `\x1b[0m|lost\x1b[1A`
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestDecodeSelftestsEscapes(t *testing.T) {
	d, err := DecodeSelftests([]byte(`{"schema":"kregress.selftests/v1","binaries":[{"name":"t\u001b","exit_code":0,"duration_sec":0,"output":"a\nb\u001b"}],` +
		`"results":[{"binary":"t","name":"test_\u001b[31mx","outcome":"pass","detail":"d\u009b"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Results[0].Name != `test_\x1b[31mx` || d.Results[0].Detail != `d\u009b` || d.Binaries[0].Output != "a\nb\\x1b" || d.Binaries[0].Name != `t\x1b` {
		t.Fatalf("not escaped: %+v", d)
	}
}
