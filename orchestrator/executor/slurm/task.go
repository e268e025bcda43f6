package slurm

import "fmt"

// TaskLabel says for a cell's provenance which Slurm array task (and
// which attempt of it: the submitter passes KREGRESS_ATTEMPT in the
// task's environment) ran it, read from the task's environment through
// getenv (os.Getenv), and on which node (Slurm's node name, which need
// not be the host name the cell records); outside a Slurm task it is
// "cell command".
func TaskLabel(getenv func(string) string) string {
	job, task := getenv("SLURM_ARRAY_JOB_ID"), getenv("SLURM_ARRAY_TASK_ID")
	if job == "" {
		return "cell command"
	}
	attempt := getenv("KREGRESS_ATTEMPT")
	if attempt == "" {
		attempt = "1"
	}
	label := fmt.Sprintf("slurm job %s_%s attempt %s", job, task, attempt)
	if node := getenv("SLURMD_NODENAME"); node != "" {
		label += " on " + node
	}
	return label
}
