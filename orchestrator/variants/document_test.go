package variants

import (
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
)

// The document is the YAML's keys and values, every key, and the
// variants baseline first with their patches.
func TestDocument(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	doc := sel.Document(cfg)
	wl, _ := doc.Config["workload"].(map[string]any)
	if wl["name"] != cfg.Workload.Name || doc.Workload != cfg.Workload.Name || len(doc.Keys) != len(config.Keys()) || doc.Family != sel.Family.Name {
		t.Errorf("document: workload %v/%q, %d keys, family %q", wl["name"], doc.Workload, len(doc.Keys), doc.Family)
	}
	if len(doc.Variants) != len(sel.Variants) || !doc.Variants[0].Baseline || doc.Variants[1].Baseline || doc.Variants[0].Patches == nil {
		t.Errorf("variants %+v: want the baseline first, patches a list", doc.Variants)
	}
}
