package agentproto

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// What kagent encodes, the host decodes to the same document: every
// section of the protocol survives the trip.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	want := seedDoc()
	var b bytes.Buffer
	if err := Encode(&b, want); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip changed the document:\n got %+v\nwant %+v", got, want)
	}
}

// Each malformed or hostile document is refused with an error that says
// what is wrong, and an error never carries more than a bounded piece of
// the guest's text.
func TestDecodeRefuses(t *testing.T) {
	const head = `{"schema":"kregress.agent/v1","workload":"rstat","metrics":[`
	huge := strings.Repeat("A", 1<<20)
	for name, c := range map[string]struct{ doc, want string }{
		"not JSON":          {`kagent: rstat: no cgroup v2`, "agent document"},
		"trailing data":     {head + `{"name":"m","unit":"u","direction":"lower","value":1}]} {}`, "trailing data"},
		"unknown field":     {`{"schema":"kregress.agent/v1","workload":"w","metrics":[],"extra":1}`, "unknown field"},
		"other schema":      {`{"schema":"kregress.agent/v0","workload":"w"}`, "unsupported agent document schema"},
		"no workload":       {`{"schema":"kregress.agent/v1","metrics":[{"name":"m","unit":"u","direction":"lower","value":1}]}`, "no workload name"},
		"no metrics":        {`{"schema":"kregress.agent/v1","workload":"w"}`, "reported no metrics"},
		"unnamed metric":    {head + `{"name":"","unit":"u","direction":"lower","value":1}]}`, "a metric has no name"},
		"metric twice":      {head + `{"name":"m","unit":"u","direction":"lower","value":1},{"name":"m","unit":"u","direction":"lower","value":2}]}`, `metric "m" reported twice`},
		"unknown direction": {head + `{"name":"m","unit":"u","direction":"sideways","value":1}]}`, `unknown direction "sideways"`},
		"reported and unavailable": {head + `{"name":"m","unit":"u","direction":"lower","value":1}],"unavailable":[{"metric":"m","reason":"r"}]}`,
			"both reported and unavailable"},
		"huge value":  {head + `{"name":"m","unit":"u","direction":"lower","value":"` + huge + `"}]}`, `metric "m": value`},
		"huge number": {head + `{"name":"m","unit":"u","direction":"lower","value":1` + strings.Repeat("0", 1<<20) + `}]}`, "longer than 64 characters"},
	} {
		_, err := Decode([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
			continue
		}
		if len(err.Error()) > 512 {
			t.Errorf("%s: a %d-byte error carries the guest's text unbounded", name, len(err.Error()))
		}
	}
	if _, err := Decode([]byte(`{"schema":"x","workload":"w"}`)); !errors.Is(err, ErrSchema) {
		t.Errorf("another schema does not wrap ErrSchema: %v", err)
	}
}
