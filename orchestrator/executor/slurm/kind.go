package slurm

import (
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
)

func init() { config.RegisterExecutor(Kind{}) }

// Kind is executor.kind slurm: everything kregress asks of this
// executor outside this package (config.ExecutorKind,
// pipeline.CellExecutorMaker, pipeline.TaskLabeler).
type Kind struct{}

// Name implements config.ExecutorKind.
func (Kind) Name() string { return "slurm" }

// Summary implements config.ExecutorKind.
func (Kind) Summary() string { return "a job array; set executor.shared_dir" }

// KeyHelp implements config.ExecutorKind.
func (Kind) KeyHelp() map[string]string {
	return map[string]string{
		"executor.slurm.partition": "the partition; empty: the cluster's default",
		"executor.slurm.options":   "extra sbatch options (e.g. --account=kernel)",
		"executor.slurm.poll":      "how often the array's state is read",
		"executor.detach":          "return once the array is submitted; kregress results show RUN shows it fill in",
	}
}

// Check implements config.ExecutorKind.
func (Kind) Check(c *config.Config) error { return Validate(c) }

// NoWait implements config.ExecutorKind: the array is watched until
// every task has stored its cell (unless executor.detach).
func (Kind) NoWait() string { return "" }

// Placement implements config.ExecutorKind.
func (Kind) Placement() string { return "a Slurm task" }

// NewCellExecutor implements pipeline.CellExecutorMaker.
func (Kind) NewCellExecutor(cfg *config.Config, p *pipeline.Prepared, report progress.Reporter) (pipeline.CellExecutor, error) {
	return New(cfg, p, report)
}

// TaskLabel implements pipeline.TaskLabeler.
func (Kind) TaskLabel(getenv func(string) string) (string, bool) {
	if getenv("SLURM_ARRAY_JOB_ID") == "" {
		return "", false
	}
	return TaskLabel(getenv), true
}
