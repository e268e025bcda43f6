package results

import "gopkg.in/yaml.v3"

// StoredPrimaryFallback is why a stored run judged its workload's
// fallback primary metric (the primary_fallback key the pipeline writes
// into the run's stored configuration), or "" when it judged its own or
// the configuration does not parse. Every verdict judged from the run
// later (a diff of it) must say so; this layer reads it because a diff
// reads stored runs without the orchestrator's configuration.
func StoredPrimaryFallback(configYAML string) string {
	var c struct {
		PrimaryFallback string `yaml:"primary_fallback"`
	}
	if yaml.Unmarshal([]byte(configYAML), &c) != nil {
		return ""
	}
	return c.PrimaryFallback
}
