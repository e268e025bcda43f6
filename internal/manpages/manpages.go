// Package manpages writes a command tree's man pages (section 1), one
// per command, from the tree itself (cobra's doc generator), so they
// never disagree with --help.
package manpages

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Write writes a page for root and every command under it into dir
// (created if needed); source is the footer's "NAME VERSION". The pages
// carry no date, so every build of one version writes the same pages.
// It says on said where it wrote them ("ROOT: wrote the man pages into
// DIR").
func Write(root *cobra.Command, dir, source string, said io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "KREGRESS", Section: "1", Source: source, Manual: "kregress manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return fmt.Errorf("man pages into %s: %w", dir, err)
	}
	_, err := fmt.Fprintf(said, "%s: wrote the man pages into %s\n", root.Name(), dir)
	return err
}
