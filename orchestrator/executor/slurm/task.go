package slurm

import "fmt"

// TaskLabel says for a cell's provenance which Slurm array task (and
// which attempt of it: the submitter passes KREGRESS_ATTEMPT in the
// task's environment) ran it, read from the task's environment through
// getenv (os.Getenv); outside a Slurm task it is "cell command".
func TaskLabel(getenv func(string) string) string {
	job, task := getenv("SLURM_ARRAY_JOB_ID"), getenv("SLURM_ARRAY_TASK_ID")
	if job == "" {
		return "cell command"
	}
	attempt := getenv("KREGRESS_ATTEMPT")
	if attempt == "" {
		attempt = "1"
	}
	return fmt.Sprintf("slurm job %s_%s attempt %s", job, task, attempt)
}
