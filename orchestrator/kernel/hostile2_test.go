package kernel

import (
	"context"
	"errors"
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

// TestDryRunBlamesThePatchThroughASymlink: in the dry run's check, a
// patch writing through a link an earlier patch of the series made
// (symlinks allowed) is refused naming that patch, not "(workspace
// reset)".
func TestDryRunBlamesThePatchThroughASymlink(t *testing.T) {
	src := newFakeSource(t)
	ws := fakeWorkspace(t, src)
	outside := t.TempDir()
	link := variantUser(t, "l", "diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+"+outside+"\n\\ No newline at end of file\n").Files
	through := variantUser(t, "t", "--- a/evil/secret\n+++ b/evil/secret\n@@ -0,0 +1 @@\n+x\n").Files
	err := checkApplies(context.Background(), ws.pristine, append(link, through...), applyOpts{allowSymlinks: true}, "v", nil)
	var se *SymlinkError
	if !errors.As(err, &se) || se.Patch != through[0].Name || strings.Contains(err.Error(), "workspace reset") {
		t.Fatalf("want a SymlinkError naming patch %s, got %v", through[0].Name, err)
	}
}
