package slurm

import "testing"

func TestTaskLabel(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "cell command"},
		{map[string]string{"SLURM_ARRAY_JOB_ID": "41", "SLURM_ARRAY_TASK_ID": "3"}, "slurm job 41_3 attempt 1"},
		{map[string]string{"SLURM_ARRAY_JOB_ID": "41", "SLURM_ARRAY_TASK_ID": "3", "KREGRESS_ATTEMPT": "2"}, "slurm job 41_3 attempt 2"},
		{map[string]string{"SLURM_ARRAY_JOB_ID": "41", "SLURM_ARRAY_TASK_ID": "3", "SLURMD_NODENAME": "node2"}, "slurm job 41_3 attempt 1 on node2"},
	} {
		if got := TaskLabel(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}
