package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/buildinfo"
	"github.com/kregress/kregress/orchestrator/variants"
)

// One output vocabulary: every command that lists or shows takes
// -f/--format json, and --json as its shorthand.
func TestListingCommandsTakeFormatJSON(t *testing.T) {
	want := map[string]bool{}
	for _, c := range []string{"results list", "results show", "runs", "metrics", "experiments", "doctor", "config", "version",
		"baseline list", "selftests known", "noise", "bisect list", "bisect show"} {
		want["kregress "+c] = true
	}
	walkCommands(func(c *cobra.Command) {
		if !want[c.CommandPath()] {
			return
		}
		delete(want, c.CommandPath())
		f := c.Flags().Lookup("format")
		if f == nil || f.Shorthand != "f" || !strings.Contains(f.Usage, "json") {
			t.Errorf("%s has no -f/--format taking json: %+v", c.CommandPath(), f)
		} else if err := f.Value.Set("json"); err != nil {
			t.Errorf("%s -f json: %v", c.CommandPath(), err)
		}
		if c.Flags().Lookup("json") == nil {
			t.Errorf("%s has no --json", c.CommandPath())
		}
	})
	for c := range want {
		t.Errorf("no command %s", c)
	}
}

// config -f json is the resolved configuration keyed as its YAML, the
// keys, and the variants it measures; version -f json its parts.
func TestConfigJSON(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"config", "-f", "json", "--workload.name", "execve", "--vm.cpus", "3"}, {"config", "--json", "--workload.name", "execve", "--vm.cpus", "3"}} {
		out, stderr, err := runSplit(args...)
		var doc variants.Document
		if err != nil || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("%v: %v %s\n%s", args, err, stderr, out)
		}
		vm, _ := doc.Config["vm"].(map[string]any)
		wl, _ := doc.Config["workload"].(map[string]any)
		if vm["cpus"] != float64(3) || wl["name"] != "execve" || doc.Workload != "execve" || len(doc.Keys) < 50 {
			t.Errorf("%v: config %v, workload %q, %d keys", args, doc.Config, doc.Workload, len(doc.Keys))
		}
		if doc.Family != "rstat" || len(doc.Variants) < 2 || !doc.Variants[0].Baseline || doc.Variants[1].Baseline {
			t.Errorf("%v: family %q, variants %+v: want rstat's, baseline first", args, doc.Family, doc.Variants)
		}
	}
	// The YAML stays the default.
	if out, _, err := runSplit("config"); err != nil || !strings.Contains(out, "workload:\n") || strings.HasPrefix(out, "{") {
		t.Errorf("config: %v\n%s", err, out)
	}
}

func TestVersionJSON(t *testing.T) {
	for _, args := range [][]string{{"version", "-f", "json"}, {"version", "--json"}} {
		out, _, err := runSplit(args...)
		var v buildinfo.Info
		if err != nil || json.Unmarshal([]byte(out), &v) != nil || v.Version == "" || !strings.HasPrefix(v.Go, "go") || v.OS == "" || v.Arch == "" {
			t.Errorf("%v: %v %+v\n%s", args, err, v, out)
		}
	}
	if out, _, err := runSplit("version"); err != nil || !strings.HasPrefix(out, "kregress ") {
		t.Errorf("version: %v %q", err, out)
	}
	if _, _, err := runSplit("version", "--json", "-f", "text"); exitCodeOf(err) != 2 {
		t.Errorf("version --json -f text: %v, want exit 2", err)
	}
}
