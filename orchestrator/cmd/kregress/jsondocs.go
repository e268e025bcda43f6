package main

import (
	"runtime"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/internal/buildinfo"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
)

// The JSON documents of config and version -f json (issue 28: every
// command that lists or shows has the same machine-readable output).

// configJSON is `kregress config -f json`: what its YAML and comments
// say, as data.
type configJSON struct {
	// Config is the resolved configuration, keyed as the YAML file is
	// (the store's password taken out, as in the YAML).
	Config map[string]any `json:"config"`
	// Keys are the configuration keys (flags --KEY, KREGRESS_KEY).
	Keys     []string          `json:"keys"`
	Family   string            `json:"family"`
	Workload string            `json:"workload"`
	Variants []configVariantJS `json:"variants"` // baseline first
}

// configVariantJS is one variant the configuration measures.
type configVariantJS struct {
	Name     string   `json:"name"`
	Baseline bool     `json:"baseline"`
	Ref      string   `json:"ref,omitempty"` // empty: the configured base
	Patches  []string `json:"patches"`
	Cmdline  string   `json:"cmdline,omitempty"`
}

func configDocument(cfg *config.Config, sel *variants.Selection) configJSON {
	doc := configJSON{Config: map[string]any{}, Keys: config.Keys(), Family: sel.Family.Name, Workload: cfg.Workload.Name, Variants: []configVariantJS{}}
	// From the YAML, not the struct: the same keys and redaction.
	yaml.Unmarshal([]byte(cfg.YAML()), &doc.Config)
	for _, v := range sel.Variants {
		jv := configVariantJS{Name: v.Name, Baseline: v.Name == sel.Family.Baseline, Ref: v.Ref, Patches: []string{}, Cmdline: v.Cmdline}
		for _, p := range v.Files {
			jv.Patches = append(jv.Patches, p.Name)
		}
		doc.Variants = append(doc.Variants, jv)
	}
	return doc
}

// versionJSON is `kregress version -f json`.
type versionJSON struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func versionDocument() versionJSON {
	return versionJSON{Version: buildinfo.Version(Version), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}
