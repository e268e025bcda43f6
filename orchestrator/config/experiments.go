package config

import (
	"embed"
	"strings"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload"
)

//go:embed default.yaml
var defaultYAML []byte

//go:embed experiments/*.yaml
var builtinExperiments embed.FS

// DefaultPrimaryMetrics is the workload's primary metrics when the
// experiment names none (nil otherwise, or for a gate-only experiment):
// its descriptor's (guest/workload), judged as their own false-discovery
// family so that a large change of one is not diluted by the secondary
// metrics (4+4 boots can call one metric at alpha 0.05; they cannot call
// one of 11).
func (c *Config) DefaultPrimaryMetrics() []string {
	if len(c.PrimaryMetrics) > 0 || c.GateOnly {
		return nil
	}
	if d := c.Workload.Benchmark; d != nil {
		return d.Primary()
	}
	return workload.Primary(c.Workload.Name)
}

// WorkloadMetrics is what the experiment's workload reports
// (Workload.Specs): its descriptor's metrics (guest/workload) or a
// declared benchmark's, and the contention and holder metrics it names;
// nil for an unknown workload.
func (c *Config) WorkloadMetrics() []metrics.Spec { return c.Workload.Specs() }

// WorkloadMetric finds one of WorkloadMetrics by name.
func (c *Config) WorkloadMetric(name string) (metrics.Spec, bool) {
	for _, s := range c.WorkloadMetrics() {
		if s.Name == name {
			return s, true
		}
	}
	return metrics.Spec{}, false
}

// JudgedPrimary is the primary metrics a comparison of this experiment
// judges: the named ones, else the workload's.
func (c *Config) JudgedPrimary() []string {
	if len(c.PrimaryMetrics) > 0 {
		return c.PrimaryMetrics
	}
	return c.DefaultPrimaryMetrics()
}

// Experiments lists the built-in experiments that -c accepts by name.
func Experiments() []string {
	names := []string{"rstat-relock"}
	entries, _ := builtinExperiments.ReadDir("experiments")
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

// DefaultYAML is the built-in default experiment.
func DefaultYAML() []byte { return defaultYAML }
