package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The man pages come from the command tree: one per visible command,
// with the flags --help shows, none for hidden commands or deprecated
// spellings.
func TestManPages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	if out, err := runInProcess("man", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	visible := 0
	walkCommands(func(c *cobra.Command) {
		if c.IsAvailableCommand() || !c.HasParent() {
			visible++
		}
	})
	run, err := os.ReadFile(filepath.Join(dir, "kregress-run.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--vm.memory-mb", "--dry-run", "Exit codes", "kregress run"} {
		if want == "Exit codes" {
			run2, _ := os.ReadFile(filepath.Join(dir, "kregress.1"))
			if !strings.Contains(string(run2), want) {
				t.Errorf("kregress.1 lacks %q", want)
			}
			continue
		}
		if !strings.Contains(strings.ReplaceAll(string(run), "\\-", "-"), want) {
			t.Errorf("kregress-run.1 lacks %q", want)
		}
	}
	if strings.Contains(strings.ReplaceAll(string(run), "\\-", "-"), "--allow-dirty") {
		t.Error("kregress-run.1 lists a deprecated spelling")
	}
	// man is listed (a copied binary has no pages until it writes them).
	if _, err := os.Stat(filepath.Join(dir, "kregress-man.1")); err != nil {
		t.Errorf("no page for the man command: %v", err)
	}
	// completion's pages come on top of the commands walkCommands visits.
	if len(pages) < visible || visible < 30 {
		t.Errorf("%d pages for %d visible commands", len(pages), visible)
	}
}
