package slurm

import (
	"time"

	"github.com/kregress/kregress/orchestrator/config"
)

func init() { config.RegisterExecutor(Kind{}) }

// name is this kind's executor.kind and its block's key.
const name = "slurm"

// Block is executor.slurm: how cells are submitted to a Slurm cluster.
type Block struct {
	// Partition is the partition; empty: the cluster's default.
	Partition string `yaml:"partition"`
	// Options are extra sbatch options, e.g. [--account=kernel, --qos=short].
	Options []string `yaml:"options"`
	// Poll is how often the array's state is read (squeue, scontrol).
	Poll config.Duration `yaml:"poll"`
}

// defaults is executor.slurm when no layer sets a key.
func defaults() any {
	return &Block{Options: []string{}, Poll: config.Duration(5 * time.Second)}
}

// blockOf is c's executor.slurm.
func blockOf(c *config.Config) *Block { return c.Executor.Block(name).(*Block) }

// Kind is executor.kind slurm: everything kregress asks of this
// executor outside this package (config.ExecutorKind,
// pipeline.CellExecutorMaker, pipeline.TaskLabeler).
type Kind struct{}

// Info implements config.ExecutorKind. The array is watched until every
// task has stored its cell (unless executor.detach).
func (Kind) Info() config.ExecutorInfo {
	return config.ExecutorInfo{
		Name:    name,
		Summary: "a job array; set executor.shared_dir",
		KeyHelp: map[string]string{
			"executor.slurm.partition": "the partition; empty: the cluster's default",
			"executor.slurm.options":   "extra sbatch options (e.g. --account=kernel); empty: none",
			"executor.slurm.poll":      "how often the array's state is read",
			"executor.detach":          "return once the array is submitted; kregress results show RUN shows it fill in",
		},
		Placement: "a Slurm task",
		Task:      "Slurm array task",
		TaskIndex: `"$SLURM_ARRAY_TASK_ID"`,
		Example:   "--executor.kind " + name + "   # with executor.shared_dir set",
		Block:     defaults,
	}
}

// TaskLabel implements pipeline.TaskLabeler.
func (Kind) TaskLabel(getenv func(string) string) (string, bool) {
	if getenv("SLURM_ARRAY_JOB_ID") == "" {
		return "", false
	}
	return TaskLabel(getenv), true
}
