package results

import (
	"strings"
	"testing"
)

// Every cell status is exactly one of ok, a kernel failure or the
// harness's: the one classification every judge (diff, nightly, bisect,
// the pipeline's run completion, the store's retry rule) reads.
func TestStatusClasses(t *testing.T) {
	want := map[Status]string{
		StatusOK: "ok", StatusCrashed: "kernel", StatusTimeout: "kernel", StatusBootFailed: "kernel",
		StatusAgentFailed: "kernel", StatusBadOutput: "kernel", StatusInfra: "infra", StatusIncomplete: "infra",
	}
	for s, class := range want {
		var got []string
		if s.OK() {
			got = append(got, "ok")
		}
		if s.KernelFailure() {
			got = append(got, "kernel")
		}
		if s.Infra() {
			got = append(got, "infra")
		}
		if len(got) != 1 || got[0] != class {
			t.Errorf("%s is %v, want only %s", s, got, class)
		}
	}
	// A status a newer writer stored and this build does not know is
	// never blamed on the kernel, nor counted as measured.
	if s := Status("frobnicated"); s.OK() || s.KernelFailure() || s.Infra() {
		t.Errorf("an unknown status was classified")
	}
}

func TestRunStatus(t *testing.T) {
	for _, s := range RunStatuses {
		if !s.Valid() {
			t.Errorf("%s not valid", s)
		}
	}
	if RunStatus("done").Valid() || RunStatus("").Valid() {
		t.Error("an unknown run status is valid")
	}
	if !RunInterrupted.Resumable() || !RunFailed.Resumable() || RunRunning.Resumable() || RunComplete.Resumable() {
		t.Error("only interrupted and failed runs resume")
	}
}

// Statuses lists every status constant once, in the order lists of them
// are shown; KernelFailures is its kernel group, in that order.
func TestStatusesListed(t *testing.T) {
	want := []Status{StatusOK, StatusCrashed, StatusTimeout, StatusBootFailed, StatusAgentFailed, StatusBadOutput, StatusInfra, StatusIncomplete}
	if len(Statuses) != len(want) {
		t.Fatalf("Statuses = %v, want %v", Statuses, want)
	}
	for i := range want {
		if Statuses[i] != want[i] {
			t.Fatalf("Statuses = %v, want %v", Statuses, want)
		}
	}
	var got []string
	for _, s := range KernelFailures() {
		got = append(got, string(s))
	}
	if want := "crashed timeout boot_failed agent_failed bad_output"; strings.Join(got, " ") != want {
		t.Errorf("KernelFailures() = %v, want %s", got, want)
	}
}
