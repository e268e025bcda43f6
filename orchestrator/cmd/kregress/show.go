package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/export"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/runlist"
	"github.com/kregress/kregress/results/store"
)

func newResultsShow() *cobra.Command {
	var printConfig bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "what a run measured: each variant's source, commit, patches (subject, author, Message-Id), kernel and cells, and a command that reproduces it",
		Example: `  kregress results show 12
  kregress results show 12 --config > run12.yaml && kregress run -c run12.yaml   # run it again`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opened, run, rs, err := loadRunArg(cmd, args[0])
			if err != nil {
				return err
			}
			defer opened.Close()
			if wantJSON(cmd) {
				return export.Write(cmd.OutOrStdout(), run, rs)
			}
			if printConfig {
				text, note := store.ReproducibleConfig(run.Config)
				if note != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "kregress: run %d: %s\n", run.ID, note)
				}
				fmt.Fprint(cmd.OutOrStdout(), text)
				return nil
			}
			status, note := runlist.State(run, thisHost(), processAlive)
			format.WriteRunShow(cmd.OutOrStdout(), run, rs, format.RunState{Status: status, Note: note})
			// Retried or resumed cells: the attempts that are not the
			// cell's result are kept, and said to be there.
			if hist, err := opened.History(cmd.Context(), run.ID); err == nil {
				format.WriteRunHistory(cmd.OutOrStdout(), hist)
			}
			return nil
		},
	}
	jsonFlag(cmd)
	cmd.Flags().Lookup("json").Usage = "print the run and every cell's result as JSON (-f json): the document results export writes (and results import reads)"
	cmd.Flags().BoolVar(&printConfig, "config", false, "print only the run's resolved configuration (refs pinned to commits, patch paths absolute): `kregress run -c` of it reproduces the run")
	return cmd
}

// loadRunArg opens the store and reads the run named by arg with its
// results; the caller closes the store.
func loadRunArg(cmd *cobra.Command, arg string) (results.Store, *results.Run, []*results.Result, error) {
	id, err := parseRunID(arg)
	if err != nil {
		return nil, nil, nil, err
	}
	_, store, err := loadReadOnly(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	run, err := store.GetRun(cmd.Context(), id)
	if err == nil {
		var rs []*results.Result
		if rs, err = store.Results(cmd.Context(), id); err == nil {
			return store, run, rs, nil
		}
	}
	store.Close()
	return nil, nil, nil, err
}
