package kernel

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownRefSuggestionIsQuoted: the command an unknown ref's error
// suggests runs nothing but git when pasted into a shell, whatever the
// ref and the tree hold.
func TestUnknownRefSuggestionIsQuoted(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "X")
	for _, e := range []*UnknownRefError{
		{Tree: dir, Ref: "master;touch " + marker},
		{Tree: dir, Ref: "$(touch " + marker + ")"},
		{Tree: dir + "; touch " + marker, Ref: "master"},
		{Tree: dir, Ref: "--output=" + marker},
	} {
		msg := e.Error()
		cmd, ok := strings.CutPrefix(msg[strings.LastIndex(msg, "(try: "):], "(try: ")
		if !ok || !strings.HasSuffix(cmd, ")") {
			t.Fatalf("no suggestion in %q", msg)
		}
		cmd = strings.TrimSuffix(cmd, ")")
		exec.Command("sh", "-c", cmd).Run() // git fails: not a repository
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("pasting %q (from %q) made %s", cmd, msg, marker)
			os.Remove(marker)
		}
	}
}
