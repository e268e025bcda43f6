package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/manpages"
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
			if err := manpages.Write(cmd.Root(), args[0], "kregress "+versionString()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "kregress: wrote the man pages into %s\n", args[0])
			return nil
		},
	}
}
