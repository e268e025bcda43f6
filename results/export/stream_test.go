package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// FuzzWritePieces: a string written in pieces of any length is the
// bytes json.Marshal makes of it whole (multi-byte and invalid UTF-8
// across a cut, HTML characters, U+2028).
func FuzzWritePieces(f *testing.F) {
	f.Add("plain", uint8(2))
	f.Add("€uro <b>&\u2028 \xe2\x82 \xff\x80\x80\x80\x80 \U0001F600", uint8(1))
	f.Add("\x00\x1b\"\\\n\t", uint8(3))
	f.Fuzz(func(t *testing.T, s string, n uint8) {
		want, _ := json.Marshal(s)
		var b bytes.Buffer
		if err := writePieces(&b, s, int(n%16)+1); err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Fatalf("pieces of %d: %q, json.Marshal: %q", n%16+1, b.String(), want)
		}
	})
}

// TestWriteLongStrings: an export with strings past longString, in
// every field that holds them, is byte for byte what json.Encoder
// writes of it, and reads back the same.
func TestWriteLongStrings(t *testing.T) {
	long := func(seed string) string { return strings.Repeat(seed, longString/len(seed)+pieceLen) }
	run := &results.Run{ID: 3, Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "v2"},
		Status: results.RunFailed, Error: long("<err>&\u2028é"), Config: long("x: 1\n\xe2\x82")}
	rs := []*results.Result{
		{Variant: "stock", Repetition: 1, Seq: 1, Status: results.StatusOK, Error: long("€"), Document: []byte(`{"a":"<b>"}`),
			Metrics: []agentproto.Metric{{Name: "m", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 1}}},
		{Variant: "v2", Repetition: 1, Seq: 2, Status: results.StatusOK, Error: "short"},
	}
	var got bytes.Buffer
	if err := Write(&got, run, rs); err != nil {
		t.Fatal(err)
	}
	// The reference: the same file through json.Encoder, with the time
	// Write stamped.
	var saved struct {
		Saved time.Time `json:"saved_at"`
	}
	if err := json.Unmarshal(got.Bytes(), &saved); err != nil {
		t.Fatal(err)
	}
	f := File{Schema: Schema, Host: run.Host, Saved: saved.Saved, Run: Run{ID: run.ID, Experiment: run.Experiment, Family: run.Family,
		Baseline: run.Baseline, Variants: run.Variants, Status: run.Status, Error: run.Error, Config: run.Config}}
	for _, r := range rs {
		f.Results = append(f.Results, Result{Variant: r.Variant, Repetition: r.Repetition, Seq: r.Seq, Status: r.Status, Error: r.Error,
			Metrics: r.Metrics, Document: r.Document})
	}
	var want bytes.Buffer
	if err := json.NewEncoder(&want).Encode(f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("Write differs from json.Encoder: %d bytes against %d", got.Len(), want.Len())
	}
	back, err := Read(&got)
	if err != nil {
		t.Fatal(err)
	}
	if back.Run.Error != run.Error || back.Results[0].Error != rs[0].Error {
		t.Fatal("the long strings did not read back")
	}
}
