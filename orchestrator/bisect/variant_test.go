package bisect

import (
	"os"
	"strings"
	"testing"

	"github.com/kregress/kregress/patches"
)

// A variant's patches go under every point's own patches; a variant
// pinned to a ref is refused.
func TestOnVariant(t *testing.T) {
	s := &Spec{Points: map[string]Point{"a": {Ref: "a"}, "0/1": {Ref: "base", Patches: []string{"/s/1.patch"}}}}
	v := &patches.Variant{Name: "relock", Files: []*patches.Patch{{Data: []byte("diff one\n"), SHA256: "ab"}}}
	if err := s.OnVariant(v, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	a, ser := s.Points["a"], s.Points["0/1"]
	if s.Variant != "relock" || len(a.Patches) != 1 || len(ser.Patches) != 2 || ser.Patches[1] != "/s/1.patch" || ser.Patches[0] != a.Patches[0] {
		t.Fatalf("points %+v", s.Points)
	}
	if data, err := os.ReadFile(a.Patches[0]); err != nil || string(data) != "diff one\n" {
		t.Fatalf("patch file: %q %v", data, err)
	}
	err := (&Spec{Points: map[string]Point{}}).OnVariant(&patches.Variant{Name: "old", Ref: "v6.1"}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "pinned to ref") {
		t.Fatalf("pinned variant: %v", err)
	}
}
