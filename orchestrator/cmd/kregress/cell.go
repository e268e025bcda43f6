package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/results/format"

	// Register executor.kind kubernetes with the pipeline (slurm, whose
	// task label the cell command reads, registers itself likewise).
	_ "github.com/kregress/kregress/orchestrator/executor/kubernetes"
	"github.com/kregress/kregress/orchestrator/executor/slurm"
)

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
		RunE:    func(cmd *cobra.Command, _ []string) error { return runCellTask(cmd, jobFile, index) },
	}
	cmd.Flags().StringVar(&jobFile, "job", "", "the job file (written by the submitting kregress)")
	cmd.Flags().IntVar(&index, "index", -1, "the cell, 0-based (a Slurm array task ID)")
	cmd.MarkFlagRequired("job")
	cmd.MarkFlagRequired("index")
	return cmd
}

// runCellTask is kregress cell: one task of a cluster executor
// (pipeline.CellJob.RunTaskIn), reported on stderr.
func runCellTask(cmd *cobra.Command, jobFile string, index int) error {
	job, err := pipeline.ReadCellTask(jobFile, index)
	if err != nil {
		return err
	}
	cfg, err := load(cmd)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	out, err := job.RunTaskIn(ctx, cfg.StoreSpec(), reporter(cmd), index, slurm.TaskLabel(os.Getenv))
	if out != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), out.Line(job.RunID))
	}
	return err
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
			return printJSONOr(cmd, selftests.KnownList(), func(w io.Writer) error {
				for _, k := range selftests.KnownList() {
					format.WriteKnownSelftest(w, k.Test, k.Reason, k.Flaky)
				}
				return nil
			})
		},
	}
	jsonFlag(known)
	cmd.AddCommand(known)
	return cmd
}
