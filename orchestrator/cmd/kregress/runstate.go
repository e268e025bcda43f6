package main

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// processAlive probes a PID on this host.
var processAlive = store.Alive

// thisHost is this host's name as runs record it.
func thisHost() string {
	h, _ := os.Hostname()
	return h
}

// parseRunID reads a RUN argument.
func parseRunID(arg string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return 0, usage.Wrap(fmt.Errorf("%q is not a run id (see kregress results list)", arg))
	}
	return id, nil
}

// runState is how listings show a run's status and note. A "running" run
// says what this host can tell about its process: live, gone (the next
// writing command here marks it), on another host (which nobody here
// can check: the user can mark it), or detached to a scheduler. It
// changes nothing, so read-only commands use it.
func runState(r *results.Run, thisHost string, alive func(int) bool) (status, note string) {
	if r.Status != results.RunRunning {
		first, _, _ := strings.Cut(r.Error, "\n")
		return string(r.Status), first
	}
	switch r.Owner.Liveness(thisHost, alive) {
	case results.GoneHere:
		return "running (process gone)", fmt.Sprintf("kregress pid %d ended without finishing it; the next writing command marks it interrupted; kregress run --resume %d finishes it", r.Owner.PID, r.ID)
	case results.OtherHost:
		return "running on " + cmp.Or(r.Owner.Hostname, "an unrecorded host"), fmt.Sprintf("pid %d since %s, cannot check from here; if it is gone: kregress results mark-interrupted %d",
			r.Owner.PID, r.StartedAt.Local().Format(time.DateTime), r.ID)
	case results.Detached:
		return "running (detached)", "its cells run on the scheduler; the last one finishes it"
	}
	return string(r.Status), fmt.Sprintf("kregress pid %d on this host", r.Owner.PID)
}

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
			run, err := store.GetRun(cmd.Context(), id)
			if err != nil {
				return err
			}
			if run.Status != results.RunRunning {
				return usage.Wrap(fmt.Errorf("run %d is %s, not running: nothing to mark", id, run.Status))
			}
			here := thisHost()
			if run.Owner.Liveness(here, processAlive) == results.LiveHere {
				return usage.Wrap(fmt.Errorf("run %d is running on this host (kregress pid %d): stop it with Ctrl-C or kill %d", id, run.Owner.PID, run.Owner.PID))
			}
			note := fmt.Sprintf("marked interrupted by hand on %s at %s; it was running on %s, kregress pid %d, since %s; completed cells are kept",
				here, time.Now().Format(time.DateTime), cmp.Or(run.Owner.Hostname, "an unrecorded host"), run.Owner.PID, run.StartedAt.Local().Format(time.DateTime))
			if err := store.MarkInterrupted(cmd.Context(), id, note); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %d marked interrupted; kregress run --resume %d (with the -c and flags it was started with) finishes it\n", id, id)
			return nil
		},
	}
}
