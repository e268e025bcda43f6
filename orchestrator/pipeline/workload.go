package pipeline

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kregress/kregress/guest/workload/attach"
	"github.com/kregress/kregress/guest/workload/execve"
	"github.com/kregress/kregress/guest/workload/lrudrain"
	"github.com/kregress/kregress/guest/workload/rstat"
	"github.com/kregress/kregress/orchestrator/config"
)

// workloads lists, per workload, its parameters and a check that parses
// them into the agent's own Params and validates them there, so the host
// refuses exactly what kagent would, before any kernel is built.
var workloads = map[string]struct {
	params []string
	check  func(p map[string]string, d time.Duration) error
}{
	"rstat": {
		params: []string{"readers", "hogs", "hog-limit-mb", "hog-mode", "window", "traced"},
		check: func(m map[string]string, d time.Duration) error {
			p := rstat.Params{Readers: 2, Hogs: 2, HogLimitMB: 64, Window: time.Second, Duration: d}
			if err := parse(m, map[string]any{"readers": &p.Readers, "hogs": &p.Hogs, "hog-limit-mb": &p.HogLimitMB, "hog-mode": &p.HogMode, "window": &p.Window, "traced": &p.Traced}); err != nil {
				return err
			}
			return p.Validate()
		},
	},
	"cgroup-attach": {
		params: []string{"movers", "pause", "window"},
		check: func(m map[string]string, d time.Duration) error {
			p := attach.Params{Movers: 2, Window: time.Second, Duration: d}
			if err := parse(m, map[string]any{"movers": &p.Movers, "pause": &p.Pause, "window": &p.Window}); err != nil {
				return err
			}
			return p.Validate()
		},
	},
	"lru-drain": {
		params: []string{"trigger", "pause", "window"},
		check: func(m map[string]string, d time.Duration) error {
			p := lrudrain.Params{Pause: 20 * time.Millisecond, Window: time.Second, Duration: d}
			if err := parse(m, map[string]any{"pause": &p.Pause, "window": &p.Window}); err != nil {
				return err
			}
			if t, ok := m["trigger"]; ok {
				if _, err := lrudrain.TriggerPath(t); err != nil {
					return err
				}
			}
			return p.Validate()
		},
	},
	"execve": {
		params: []string{"workers", "chain", "window"},
		check: func(m map[string]string, d time.Duration) error {
			p := execve.Params{Chain: 100, Window: time.Second, Duration: d}
			if err := parse(m, map[string]any{"workers": &p.Workers, "chain": &p.Chain, "window": &p.Window}); err != nil {
				return err
			}
			return p.Validate()
		},
	},
}

// WorkloadNames lists the known workloads.
func WorkloadNames() []string {
	return slices.Sorted(maps.Keys(workloads))
}

func parse(m map[string]string, into map[string]any) error {
	for k, v := range m {
		var err error
		switch dst := into[k].(type) {
		case *int:
			*dst, err = strconv.Atoi(v)
		case *time.Duration:
			*dst, err = time.ParseDuration(v)
		case *string:
			*dst = v // each workload's Validate checks its strings
		}
		if err != nil {
			return fmt.Errorf("parameter %s=%q: %v", k, v, err)
		}
	}
	return nil
}

// AgentCommand validates the workload's parameters on the host (so a bad
// value fails before any kernel is built) and returns the kagent command.
func AgentCommand(w config.Workload) (string, error) {
	spec, ok := workloads[w.Name]
	if !ok {
		return "", fmt.Errorf("unknown workload %q (known: %s)", w.Name, strings.Join(WorkloadNames(), ", "))
	}
	known := map[string]bool{}
	for _, p := range spec.params {
		known[p] = true
	}
	keys := make([]string, 0, len(w.Params))
	for k := range w.Params {
		if !known[k] {
			return "", fmt.Errorf("workload %s: unknown parameter %q (known: %s)", w.Name, k, strings.Join(spec.params, ", "))
		}
		keys = append(keys, k)
	}
	if err := spec.check(w.Params, w.Duration.D()); err != nil {
		return "", fmt.Errorf("workload %s: %w", w.Name, err)
	}
	sort.Strings(keys)
	args := []string{"/bin/kagent", "run", w.Name, "-duration", w.Duration.String()}
	for _, k := range keys {
		args = append(args, "-"+k, w.Params[k])
	}
	return strings.Join(args, " "), nil
}
