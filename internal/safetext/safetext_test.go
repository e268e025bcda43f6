package safetext

import (
	"strings"
	"testing"
)

func TestLineAndText(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"cgroup_rstat_flush", "cgroup_rstat_flush", "cgroup_rstat_flush"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"a\nb\tc\r", `a\nb\tc\r`, "a\nb\tc\\r"},
		{"csi\u009b2J", `csi\u009b2J`, `csi\u009b2J`},
		{"bidi\u202eevil", `bidi\u202eevil`, `bidi\u202eevil`},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"bad\xffutf8", `bad\xffutf8`, `bad\xffutf8`},
		{"µs → ok \ufffd", "µs → ok \ufffd", "µs → ok \ufffd"},
		{"bell\a", `bell\x07`, `bell\x07`},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if !Clean(Line(c.in)) {
			t.Errorf("Line(%q) is not clean", c.in)
		}
	}
}

type doc struct {
	Name   string
	Trace  string `safetext:"text"`
	Stack  []string
	Params map[string]string
	Inner  *doc
	n      int // unexported: Strings must skip it (reflect cannot set it)
}

func TestStrings(t *testing.T) {
	d := &doc{Name: "\x1bx", Trace: "a\nb\x1b", Stack: []string{"f\x1b"}, Params: map[string]string{"k\x1b": "v\x1b"},
		Inner: &doc{Name: "\x9b", Trace: "\x00"}, n: 7}
	Strings(d)
	if d.n != 7 {
		t.Fatalf("unexported field changed: %d", d.n)
	}
	got := d.Name + "|" + d.Trace + "|" + strings.Join(d.Stack, ",") + "|" + d.Inner.Name + "|" + d.Inner.Trace
	if want := `\x1bx|` + "a\nb" + `\x1b|f\x1b|\x9b|\x00`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if d.Params[`k\x1b`] != `v\x1b` || len(d.Params) != 1 {
		t.Fatalf("map: %q", d.Params)
	}
}
