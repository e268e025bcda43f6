package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
)

// cellDoc is one boot's agent document as a run stored it, read back:
// the metrics by name, and why each unavailable one is.
type cellDoc struct {
	Path    string // the agent.json
	Cell    string // the cell's directory name (variant, repetition)
	Doc     agentproto.Document
	Metrics map[string]agentproto.Metric
	Why     map[string]string
}

// value is the metric's value and whether it was measured at all.
func (c cellDoc) value(name string) (float64, bool) {
	m, ok := c.Metrics[name]
	return m.Value, ok
}

// agentDocs reads every agent document run stored under results.
func agentDocs(t *testing.T, results string, run int) []cellDoc {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(results, "artifacts", fmt.Sprintf("run-%d", run), "*", "agent.json"))
	var docs []cellDoc
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := cellDoc{Path: p, Cell: filepath.Base(filepath.Dir(p)), Metrics: map[string]agentproto.Metric{}, Why: map[string]string{}}
		if err := json.Unmarshal(data, &c.Doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, m := range c.Doc.Metrics {
			c.Metrics[m.Name] = m
		}
		for _, u := range c.Doc.Unavailable {
			c.Why[u.Metric] = u.Reason
		}
		docs = append(docs, c)
	}
	return docs
}

// compileBenchmark builds a user's benchmark program from its C source
// into dir/name, as a user would before pointing an experiment at it.
func compileBenchmark(t *testing.T, dir, name, source string) {
	t.Helper()
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O2", "-o", filepath.Join(dir, name), src).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v: %s", name, err, out)
	}
}

// String names the document by its path, as test failures list it.
func (c cellDoc) String() string { return c.Path }
