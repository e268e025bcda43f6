package manpages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A page per command, into a directory made for them, without a date.
func TestWrite(t *testing.T) {
	root := &cobra.Command{Use: "kregress", Short: "root"}
	root.AddCommand(&cobra.Command{Use: "run", Short: "run it", Run: func(*cobra.Command, []string) {}})
	dir := filepath.Join(t.TempDir(), "man", "man1")
	var said strings.Builder
	if err := Write(root, dir, "kregress v1", &said); err != nil {
		t.Fatal(err)
	}
	if want := "kregress: wrote the man pages into " + dir + "\n"; said.String() != want {
		t.Errorf("Write said %q, want %q", said.String(), want)
	}
	page, err := os.ReadFile(filepath.Join(dir, "kregress-run.1"))
	if err != nil || !strings.Contains(string(page), "run it") || !strings.Contains(string(page), "kregress v1") || strings.Contains(string(page), "Auto generated") {
		t.Fatalf("kregress-run.1: %v\n%s", err, page)
	}
	if _, err := os.Stat(filepath.Join(dir, "kregress.1")); err != nil {
		t.Error(err)
	}
}
