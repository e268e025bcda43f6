package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/results/runlist"
	"github.com/kregress/kregress/results/store"
)

// processAlive probes a PID on this host.
var processAlive = store.Alive

// thisHost is this host's name as runs record it.
func thisHost() string {
	h, _ := os.Hostname()
	return h
}

// parseRunID reads a RUN argument (runlist.ParseID).
func parseRunID(arg string) (int64, error) { return runlist.ParseID(arg) }

func newResultsMarkInterrupted() *cobra.Command {
	return &cobra.Command{
		Use:   "mark-interrupted RUN",
		Short: "mark a run interrupted whose kregress process, on another host, is gone",
		Long: `mark-interrupted marks a run that the store says is running as interrupted,
keeping its completed cells; kregress run --resume RUN then finishes it.

A run started on this host whose process is gone is marked by the next
writing command by itself. One started on another host cannot be checked
from here (results list shows "running on HOST" with its pid and start):
when you know that process is gone, mark it with this command. A run whose
process is alive on this host is refused: stop it with Ctrl-C or kill.`,
		Example: `  kregress results mark-interrupted 12 && kregress run -c my.yaml --resume 12`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseRunID(args[0])
			if err != nil {
				return err
			}
			_, store, err := loadWithStore(cmd)
			if err != nil {
				return err
			}
			defer store.Close()
			if err := runlist.MarkInterrupted(cmd.Context(), store, id, thisHost(), processAlive, time.Now()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %d marked interrupted; kregress run --resume %d (with the -c and flags it was started with) finishes it\n", id, id)
			return nil
		},
	}
}
