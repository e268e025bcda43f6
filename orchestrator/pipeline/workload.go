package pipeline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kregress/kregress/guest/workload/rstat"
	"github.com/kregress/kregress/orchestrator/config"
)

// AgentCommand validates the workload's parameters on the host (so a bad
// value fails before any kernel is built) and returns the kagent command.
func AgentCommand(w config.Workload) (string, error) {
	switch w.Name {
	case "rstat":
		p := rstat.Params{Readers: 2, Hogs: 2, HogLimitMB: 64, Window: time.Second, Duration: w.Duration.D()}
		for k, v := range w.Params {
			var err error
			switch k {
			case "readers":
				p.Readers, err = strconv.Atoi(v)
			case "hogs":
				p.Hogs, err = strconv.Atoi(v)
			case "hog-limit-mb":
				p.HogLimitMB, err = strconv.Atoi(v)
			case "window":
				p.Window, err = time.ParseDuration(v)
			default:
				return "", fmt.Errorf("workload rstat: unknown parameter %q (known: readers, hogs, hog-limit-mb, window)", k)
			}
			if err != nil {
				return "", fmt.Errorf("workload rstat: parameter %s=%q: %v", k, v, err)
			}
		}
		if err := p.Validate(); err != nil {
			return "", fmt.Errorf("workload %w", err)
		}
		keys := make([]string, 0, len(w.Params))
		for k := range w.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		args := []string{"/bin/kagent", "run", "rstat", "-duration", w.Duration.String()}
		for _, k := range keys {
			args = append(args, "-"+k, w.Params[k])
		}
		return strings.Join(args, " "), nil
	default:
		return "", fmt.Errorf("unknown workload %q (known: rstat)", w.Name)
	}
}
