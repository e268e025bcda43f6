package doclimit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func flatYAML(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%d: %d\n", i, i)
	}
	return b.String()
}

func nestedYAML(maps, each int) string {
	var b strings.Builder
	for i := 0; i < maps; i++ {
		fmt.Fprintf(&b, "m%d:\n", i)
		for j := 0; j < each; j++ {
			fmt.Fprintf(&b, "  k%d: %d\n", j, j)
		}
	}
	return b.String()
}

func checkYAML(t *testing.T, doc string) error {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	return YAML(&root)
}

// The caps refuse what would take long, and what they let through is
// decoded quickly: each case logs how long the check and the decoding
// of what passes took (never asserted).
func TestYAMLCaps(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  string
		want string // "" passes
	}{
		{"flat at the mapping cap", flatYAML(MaxMappingKeys), ""},
		{"flat over the mapping cap (~100k keys, 1 MiB)", flatYAML(100000), "the mapping on line 1 has more than 4096 keys"},
		{"nested just under the total cap", nestedYAML(MaxKeys/501, 500), ""},
		{"nested over the total cap", nestedYAML(MaxKeys/500+1, 500), "more than 50000 keys"},
		{"aliases not followed", "a: &a {x: 1, y: 2}\nb: *a\nc: *a\n", ""},
	} {
		start := time.Now()
		err := checkYAML(t, c.doc)
		checked := time.Since(start)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if err == nil {
			var v any
			if err := yaml.Unmarshal([]byte(c.doc), &v); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s (%d bytes): parsed to nodes and checked in %v, then decoded by %v", c.name, len(c.doc), checked, time.Since(start))
	}
}

func TestJSONCaps(t *testing.T) {
	flat := func(n int) string {
		m := map[string]int{}
		for i := 0; i < n; i++ {
			m[fmt.Sprint("k", i)] = i
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	nested := func(objs, each int) string {
		var list []map[string]any
		for i := 0; i < objs; i++ {
			m := map[string]any{}
			for j := 0; j < each; j++ {
				m[fmt.Sprint("k", j)] = []any{j, map[string]int{}}
			}
			list = append(list, m)
		}
		b, _ := json.Marshal(map[string]any{"jobs": list})
		return string(b)
	}
	for _, c := range []struct {
		name string
		doc  string
		want string
	}{
		{"flat at the object cap", flat(MaxMappingKeys), ""},
		{"flat over the object cap", flat(100000), "an object has more than 4096 keys"},
		{"nested within", nested(MaxKeys/1000, 999), ""},
		{"nested over the total cap", nested(MaxKeys/1000+1, 1000), "more than 50000 keys"},
		{"trailing text not counted", flat(10) + strings.Repeat(`{"a":1}`, MaxKeys), ""},
		{"a scalar", `"x"`, ""},
		{"broken", `{"a":`, ""},
	} {
		start := time.Now()
		err := JSON([]byte(c.doc))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		t.Logf("%s (%d bytes): checked in %v", c.name, len(c.doc), time.Since(start))
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":{"b":[1,{"c":2}]}}`, `[[[`, `{"a":1}{"b":2}`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		JSON(data)
	})
}
