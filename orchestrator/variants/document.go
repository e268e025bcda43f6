package variants

import (
	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/orchestrator/config"
)

// Document is `kregress config -f json`: what its YAML and comments say,
// as data (every command that shows has a machine-readable output).
type Document struct {
	// Config is the resolved configuration, keyed as the YAML file is
	// (the store's password taken out, as in the YAML).
	Config map[string]any `json:"config"`
	// Keys are the configuration keys (flags --KEY, KREGRESS_KEY).
	Keys     []string          `json:"keys"`
	Family   string            `json:"family"`
	Workload string            `json:"workload"`
	Variants []DocumentVariant `json:"variants"` // baseline first
}

// DocumentVariant is one variant the configuration measures.
type DocumentVariant struct {
	Name     string   `json:"name"`
	Baseline bool     `json:"baseline"`
	Ref      string   `json:"ref,omitempty"` // empty: the configured base
	Patches  []string `json:"patches"`
	Cmdline  string   `json:"cmdline,omitempty"`
}

// Document is cfg, the configuration s was resolved from, and the
// variants s measures.
func (s *Selection) Document(cfg *config.Config) Document {
	doc := Document{Config: map[string]any{}, Keys: config.Keys(), Family: s.Family.Name, Workload: cfg.Workload.Name, Variants: []DocumentVariant{}}
	// From the YAML, not the struct: the same keys and redaction.
	yaml.Unmarshal([]byte(cfg.YAML()), &doc.Config)
	for _, v := range s.Variants {
		dv := DocumentVariant{Name: v.Name, Baseline: v.Name == s.Family.Baseline, Ref: v.Ref, Patches: []string{}, Cmdline: v.Cmdline}
		for _, p := range v.Files {
			dv.Patches = append(dv.Patches, p.Name)
		}
		doc.Variants = append(doc.Variants, dv)
	}
	return doc
}
