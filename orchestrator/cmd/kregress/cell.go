package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"

	// Register executor.kind slurm and kubernetes with the pipeline.
	_ "github.com/kregress/kregress/orchestrator/executor/kubernetes"
	_ "github.com/kregress/kregress/orchestrator/executor/slurm"
)

// waitsForCells refuses an executor that would not wait for the cells in
// a command that judges their results (nightly, bisect, seeds, noise).
func waitsForCells(cmd *cobra.Command, cfg *config.Config) error {
	switch {
	case cfg.Executor.Kind == "kubernetes":
		return usageError{fmt.Errorf("%s judges the cells' results, and the kubernetes executor only writes a manifest (use executor local or slurm)", cmd.Name())}
	case cfg.Executor.Detach:
		return usageError{fmt.Errorf("%s judges the cells' results: executor.detach is for run", cmd.Name())}
	}
	return nil
}

// addExecutorFlags adds the old spellings of the executor keys (after
// addConfigFlags): --executor, --parallel and, where cells may be left
// running, --detach.
func addExecutorFlags(cmd *cobra.Command, detach bool) {
	f := cmd.Flags()
	deprecatedAlias(f, "executor", config.FlagFor("executor.kind"))
	deprecatedAlias(f, "parallel", config.FlagFor("executor.parallel"))
	if detach {
		deprecatedAlias(f, "detach", config.FlagFor("executor.detach"))
	}
}

func newCell() *cobra.Command {
	var jobFile string
	var index int
	cmd := &cobra.Command{
		Use:   "cell --job FILE --index N",
		Short: "run one cell of a submitted run and store its result (what each Slurm array task runs)",
		Long: `cell boots, measures and stores cell N (0-based) of the job file that a
cluster executor wrote into the shared directory. The store comes from
KREGRESS_STORE (the submitter passes it in the task's environment, never in
a file). SIGTERM (scancel, preemption, a time limit) stores the cell as
infra_error with what was measured so far. The last cell of a run to be
stored finishes the run, so a detached run completes on its own.

Exit codes: 0 the result was stored (whatever the cell's status); 1 it
could not be; 2 bad arguments.`,
		Example: `  kregress cell --job /shared/kregress/results/artifacts/run-12/slurm/job.json --index "$SLURM_ARRAY_TASK_ID"`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			job, err := pipeline.ReadCellJob(jobFile)
			if err != nil {
				return usageError{err}
			}
			if index < 0 || index >= len(job.Cells) {
				return usageError{fmt.Errorf("--index %d: the job has cells 0..%d", index, len(job.Cells)-1)}
			}
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			// Not openStore: marking stale runs is the submitter's job.
			spec, err := store.Normalize(cfg.StoreSpec())
			if err != nil {
				return usageError{err}
			}
			store, err := store.Open(spec)
			if err != nil {
				return err
			}
			defer store.Close()
			ctx, cancel := signalContext()
			defer cancel()
			bg := context.Background()
			// A retried task (Kubernetes per-index retry, a requeue) whose
			// cell already has a measurement does not measure it again:
			// the store would keep the first one anyway (see
			// store.Store.AddResult).
			if prev, err := measured(bg, store, job.RunID, job.Cells[index].Seq); err != nil {
				return fmt.Errorf("run %d cell %d: %w", job.RunID, job.Cells[index].Seq, err)
			} else if prev != nil {
				fmt.Fprintf(os.Stderr, "run %d cell %d (%s rep %d) already has a result (%s, stored %s): not measured again\n", job.RunID, prev.Seq, prev.Variant, prev.Repetition, prev.Status, prev.FinishedAt.Format(time.RFC3339))
				return finishIfLast(bg, store, job)
			}
			runner, err := job.Settings.Runner(reporter())
			if err != nil {
				return err
			}
			runner.Executor = taskLabel()
			res := job.RunCell(ctx, runner, index)
			if ctx.Err() != nil && res.Status == results.StatusIncomplete {
				res.Status = results.StatusInfra
				res.Error = "the task was signalled mid-cell (scancel, preemption or a time limit): " + res.Error
			}
			if err := store.AddResult(bg, res); err != nil {
				return fmt.Errorf("run %d cell %d: %w", job.RunID, res.Seq, err)
			}
			kept := ""
			if res.Superseded {
				kept = " (another attempt stored this cell's result first; this one is kept as history)"
			}
			fmt.Fprintf(os.Stderr, "run %d cell %d (%s rep %d): %s%s%s\n", job.RunID, res.Seq, res.Variant, res.Repetition, res.Status, pipeline.SummaryLine(res), kept)
			return finishIfLast(bg, store, job)
		},
	}
	cmd.Flags().StringVar(&jobFile, "job", "", "the job file (written by the submitting kregress)")
	cmd.Flags().IntVar(&index, "index", -1, "the cell, 0-based (a Slurm array task ID)")
	cmd.MarkFlagRequired("job")
	cmd.MarkFlagRequired("index")
	return cmd
}

// taskLabel says for provenance which Slurm task (and attempt) ran a cell.
func taskLabel() string {
	job, task := os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID")
	if job == "" {
		return "cell command"
	}
	attempt := os.Getenv("KREGRESS_ATTEMPT")
	if attempt == "" {
		attempt = "1"
	}
	return fmt.Sprintf("slurm job %s_%s attempt %s", job, task, attempt)
}

// measured returns the cell's current result when it is a kernel outcome
// (not infra_error or incomplete, which a new attempt replaces).
func measured(ctx context.Context, store results.Store, runID int64, seq int) (*results.Result, error) {
	rs, err := store.Results(ctx, runID)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if r.Seq == seq && !results.IsHarnessStatus(r.Status) {
			return r, nil
		}
	}
	return nil, nil
}

// finishIfLast marks the run complete once every cell of the job has a
// result. Cells are counted by position (seq), not rows: a cell stored
// twice is one cell, and never stands in for one that did not run.
func finishIfLast(ctx context.Context, store results.Store, job *pipeline.CellJob) error {
	rs, err := store.Results(ctx, job.RunID)
	if err != nil {
		return err
	}
	have := map[int]bool{}
	for _, r := range rs {
		have[r.Seq] = true
	}
	for _, c := range job.Cells {
		if !have[c.Seq] {
			return nil
		}
	}
	run, err := store.GetRun(ctx, job.RunID)
	if err != nil || run.Status == results.RunComplete {
		return err
	}
	return store.FinishRun(ctx, job.RunID, results.RunComplete, pipeline.NotOK(rs, len(have)))
}

func newSelftests() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "selftests",
		Example: `  kregress selftests known               # the failures diagnosed for the built-in guest`,
		Short:   "about the correctness gate's kernel selftests",
	}
	known := &cobra.Command{
		Use:     "known",
		Example: `  kregress selftests known`,
		Short:   "list the selftests known to fail on the built-in guest, and why",
		Long: `known lists the cgroup selftests that fail on kregress's built-in guest
(tinyconfig + guest.config, initramfs root, 2 vCPUs) on every kernel, each
with its diagnosed reason. diff shows their failures as known; any other
failure is unexplained, and a candidate that fails a test its baseline
passes is flagged either way, unless the test is marked flaky (it fails
some of the time on every kernel): then the change is shown, not flagged.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if wantJSON(cmd) {
				type known struct {
					Test   string `json:"test"`
					Reason string `json:"reason"`
					Flaky  bool   `json:"flaky"`
				}
				rows := []known{}
				for _, k := range selftests.KnownList() {
					rows = append(rows, known{k.Test, k.Reason, k.Flaky})
				}
				return writeJSON(os.Stdout, rows)
			}
			for _, k := range selftests.KnownList() {
				flaky := ""
				if k.Flaky {
					flaky = " (flaky: fails some of the time)"
				}
				fmt.Printf("%s%s\n    %s\n", k.Test, flaky, k.Reason)
			}
			return nil
		},
	}
	jsonFlag(known)
	cmd.AddCommand(known)
	return cmd
}
