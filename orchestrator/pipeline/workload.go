package pipeline

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/kregress/kregress/guest/contention"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/orchestrator/config"
)

// AgentCommand validates the workload's parameters on the host (so a bad
// value fails before any kernel is built) and returns the kagent command.
// It validates by parsing the very arguments it returns with kagent's own
// parser (guest/workload), so the host refuses exactly what kagent would.
func AgentCommand(w config.Workload) (string, error) {
	wl, err := workload.Lookup(w.Name)
	if err != nil {
		return "", err
	}
	// duration comes from workload.duration, not from params.
	var known []string
	for _, s := range wl.Params() {
		if s.Name != sampler.DurationParam {
			known = append(known, s.Name)
		}
	}
	args := []string{"-" + sampler.DurationParam, w.Duration.String()}
	for _, k := range slices.Sorted(maps.Keys(w.Params)) {
		if !slices.Contains(known, k) {
			return "", fmt.Errorf("workload %s: unknown parameter %q (known: %s)", w.Name, k, strings.Join(known, ", "))
		}
		args = append(args, "-"+k, w.Params[k])
	}
	if wl.Declared != "" {
		// The declaration kagent gets: the program at its path in the
		// image. config.Validate checked it is there exactly when the
		// workload takes one.
		if w.Benchmark == nil {
			return "", fmt.Errorf("workload %s: needs its declaration (workload.benchmark)", w.Name)
		}
		args = append(args, "-"+wl.Declared, w.Benchmark.Guest().Encode())
	}
	if _, err := wl.Parse(args, workload.Env{}, io.Discard); err != nil {
		return "", fmt.Errorf("workload %s: %w", w.Name, err)
	}
	run := []string{"/bin/kagent", "run"}
	if len(w.LockContention) > 0 {
		run = append(run, contention.Flag, strings.Join(w.LockContention, ","))
	}
	if len(w.LockContentionUnder) > 0 {
		run = append(run, contention.UnderFlag, strings.Join(w.LockContentionUnder, ","))
	}
	if w.IrqsoffHolder != "" {
		run = append(run, sampler.HolderFlag, w.IrqsoffHolder)
	}
	return strings.Join(append(append(run, w.Name), args...), " "), nil
}
