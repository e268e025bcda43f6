package slurm

import "github.com/kregress/kregress/orchestrator/config"

func init() { config.RegisterExecutor(Kind{}) }

// Kind is executor.kind slurm: everything kregress asks of this
// executor outside this package (config.ExecutorKind,
// pipeline.CellExecutorMaker, pipeline.TaskLabeler).
type Kind struct{}

// Info implements config.ExecutorKind. The array is watched until every
// task has stored its cell (unless executor.detach).
func (Kind) Info() config.ExecutorInfo {
	return config.ExecutorInfo{
		Name:    "slurm",
		Summary: "a job array; set executor.shared_dir",
		KeyHelp: map[string]string{
			"executor.slurm.partition": "the partition; empty: the cluster's default",
			"executor.slurm.options":   "extra sbatch options (e.g. --account=kernel); empty: none",
			"executor.slurm.poll":      "how often the array's state is read",
			"executor.detach":          "return once the array is submitted; kregress results show RUN shows it fill in",
		},
		Placement: "a Slurm task",
	}
}

// TaskLabel implements pipeline.TaskLabeler.
func (Kind) TaskLabel(getenv func(string) string) (string, bool) {
	if getenv("SLURM_ARRAY_JOB_ID") == "" {
		return "", false
	}
	return TaskLabel(getenv), true
}
