package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

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
			store, run, rs, err := loadRunArg(cmd, args[0])
			if err != nil {
				return err
			}
			defer store.Close()
			if wantJSON(cmd) {
				return export.Write(cmd.OutOrStdout(), run, rs)
			}
			if printConfig {
				text, note := reproducibleConfig(run.Config)
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
			if hist, err := store.History(cmd.Context(), run.ID); err == nil && len(hist) > 0 {
				var parts []string
				for _, h := range hist {
					parts = append(parts, fmt.Sprintf("cell %d %s", h.Seq, h.Status))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "  history: %d other attempt(s) kept, not counted (a retried task or a resumed run): %s\n", len(hist), strings.Join(parts, ", "))
			}
			return nil
		},
	}
	jsonFlag(cmd)
	cmd.Flags().Lookup("json").Usage = "print the run and every cell's result as JSON (-f json): the document results export writes (and results import reads)"
	cmd.Flags().BoolVar(&printConfig, "config", false, "print only the run's resolved configuration (refs pinned to commits, patch paths absolute): `kregress run -c` of it reproduces the run")
	return cmd
}

// reproducibleConfig is a stored configuration as `run -c` should read it
// again. Its PostgreSQL store had its password replaced by
// store.Redacted when it was stored: reproduced as is, the run would
// connect with that marker as its password. The store is printed
// without a password (the client then takes it from PGPASSWORD or
// ~/.pgpass), with a comment and a note saying it must be supplied.
func reproducibleConfig(config string) (text, note string) {
	lines := strings.SplitAfter(config, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "store:") {
			continue // only the top-level key
		}
		var v struct {
			Store string `yaml:"store"`
		}
		if yaml.Unmarshal([]byte(line), &v) != nil || !store.IsPostgres(v.Store) || !store.HasRedactedPassword(v.Store) {
			return config, ""
		}
		bare := store.StripPassword(v.Store)
		out, err := yaml.Marshal(map[string]string{"store": bare})
		if err != nil {
			return config, ""
		}
		lines[i] = "# The store's password was redacted when the run was stored: supply it\n" +
			"# with PGPASSWORD or ~/.pgpass, or the full DSN with --store or KREGRESS_STORE.\n" + string(out)
		return strings.Join(lines, ""), fmt.Sprintf("the store's password (%s) was redacted when the run was stored and is not in this configuration: supply it with PGPASSWORD or ~/.pgpass, or the full DSN with --store or KREGRESS_STORE", bare)
	}
	return config, ""
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
