package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command that lists or shows has --json.
func TestListingCommandsHaveJSON(t *testing.T) {
	want := map[string]bool{"kregress results list": true, "kregress runs": true, "kregress results show": true, "kregress bisect show": true,
		"kregress baseline list": true, "kregress noise": true, "kregress selftests known": true, "kregress experiments": true,
		"kregress metrics": true, "kregress doctor": true}
	walkCommands(func(c *cobra.Command) {
		if want[c.CommandPath()] {
			if c.Flags().Lookup("json") == nil {
				t.Errorf("%s has no --json", c.CommandPath())
			}
			delete(want, c.CommandPath())
		}
	})
	for c := range want {
		t.Errorf("no command %s", c)
	}
}

// runSplit runs a command line in-process, as main does, with its
// stdout and stderr apart.
func runSplit(args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	if code := execute(args, &out, &errb); code != 0 {
		err = exitError(code)
	}
	return out.String(), errb.String(), err
}

func jsonOf(t *testing.T, store string, args ...string) any {
	t.Helper()
	t.Setenv("KREGRESS_STORE", store)
	t.Setenv("KREGRESS_RESULTS_DIR", filepath.Dir(store))
	out, _, err := runSplit(args...)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: not JSON: %v\n%s", args, err, out)
	}
	return v
}

func TestJSONOutputs(t *testing.T) {
	store := seed(t)
	runs := jsonOf(t, store, "results", "list", "--json").([]any)
	if len(runs) != 3 || runs[2].(map[string]any)["experiment"] != "rstat-relock" || runs[2].(map[string]any)["ok_cells"] != 12.0 {
		t.Fatalf("results list --json: %v", runs)
	}
	if again := jsonOf(t, store, "runs", "--json", "--limit", "1").([]any); len(again) != 1 {
		t.Fatalf("runs --json --limit 1: %v", again)
	}
	show := jsonOf(t, store, "results", "show", "1", "--json").(map[string]any)
	if len(show) == 0 || !strings.Contains(mustMarshal(show), "per-cpu-relock") {
		t.Fatalf("results show --json: %v", show)
	}
	if marks := jsonOf(t, store, "baseline", "list", "--json").([]any); len(marks) != 0 {
		t.Fatalf("baseline list --json of a store without marks: %v", marks)
	}
	known := jsonOf(t, store, "selftests", "known", "--json").([]any)
	if len(known) < 3 || known[0].(map[string]any)["reason"] == "" {
		t.Fatalf("selftests known --json: %v", known)
	}
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
