package vm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A guest can write gigabytes to its console: the tail reads only the
// file's end, and a single endless line comes back bounded.
func TestConsoleTailIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "console.log")
	os.WriteFile(p, []byte(strings.Repeat("x", 3*consoleTailBytes)+"\nlast line\n"), 0o644)
	if got := ConsoleTail(p, 1); got != "last line" {
		t.Fatalf("tail %.40q", got)
	}
	if got := ConsoleTail(p, 2); len(got) > consoleTailBytes {
		t.Fatalf("a %d-byte line came back whole", len(got))
	}
}
