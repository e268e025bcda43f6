package format

import (
	"bytes"
	"testing"
)

func TestIndentedJSON(t *testing.T) {
	var b bytes.Buffer
	if err := IndentedJSON(&b, map[string][]int{"a": {1}}); err != nil || b.String() != "{\n  \"a\": [\n    1\n  ]\n}\n" {
		t.Errorf("IndentedJSON: %v %q", err, b.String())
	}
}
