package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/internal/testfile"
)

// The agent's usage (its run lines and helper commands) is pinned byte
// for byte.
func TestUsageGolden(t *testing.T) {
	testfile.Golden(t, filepath.Join("testdata", "usage.txt"), usage())
}

// describedMetric is one metric as the agent describes it: the spec its
// reports carry, and what the probe must find in the kernel for it.
type describedMetric struct {
	metrics.Spec
	Needs []string `json:"needs,omitempty"`
}

// Every workload's metrics in report order, with what each needs of the
// kernel and the irqs-off holder metric, are pinned byte for byte.
func TestMetricDescriptionsGolden(t *testing.T) {
	out := map[string][]describedMetric{}
	for _, w := range workload.Names() {
		for _, s := range workload.Metrics(w) {
			d := describedMetric{Spec: s}
			for _, n := range s.Needs {
				d.Needs = append(d.Needs, n.String())
			}
			out[w] = append(out[w], d)
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var held strings.Builder
	for _, h := range []string{"rstat", "execve", "cgroup-attach", "lru-drain", ""} {
		held.WriteString(h + ": ")
		for _, w := range workload.All() {
			if w.Holder != nil && w.Holder.Substr == h {
				held.WriteString(w.Holder.Share.Name)
			}
		}
		held.WriteString("\n")
	}
	testfile.Golden(t, filepath.Join("testdata", "metrics.json"), string(b)+"\n"+held.String())
}
