package format

import (
	"bytes"
	"io"
	"testing"
)

func TestIndentedJSON(t *testing.T) {
	var b bytes.Buffer
	if err := IndentedJSON(&b, map[string][]int{"a": {1}}); err != nil || b.String() != "{\n  \"a\": [\n    1\n  ]\n}\n" {
		t.Errorf("IndentedJSON: %v %q", err, b.String())
	}
}

func TestJSONOr(t *testing.T) {
	text := func(w io.Writer) error { _, err := io.WriteString(w, "a table\n"); return err }
	for _, c := range []struct {
		asJSON bool
		want   string
	}{{false, "a table\n"}, {true, "[\n  1\n]\n"}} {
		var b bytes.Buffer
		if err := JSONOr(&b, c.asJSON, []int{1}, text); err != nil || b.String() != c.want {
			t.Errorf("JSONOr(json %v): %v %q, want %q", c.asJSON, err, b.String(), c.want)
		}
	}
}
