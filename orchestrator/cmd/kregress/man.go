package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newMan writes the man pages, one per command, from the command tree
// itself (cobra's doc generator), so they never disagree with --help.
// make man and make install call it; it is hidden from the command list.
func newMan() *cobra.Command {
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "write a man page (section 1) for every command into DIR",
		Example: `  kregress man bin/man/man1`,
		Hidden:  true,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			// The date would make every build's pages differ.
			root.DisableAutoGenTag = true
			header := &doc.GenManHeader{Title: "KREGRESS", Section: "1", Source: "kregress " + versionString(), Manual: "kregress manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("man pages into %s: %w", dir, err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "kregress: wrote the man pages into %s\n", dir)
			return nil
		},
	}
}
