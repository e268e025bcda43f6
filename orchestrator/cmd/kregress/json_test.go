package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/results/noise"
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

// noise's JSON carries what was not measured as null, not as a NaN that
// would make the whole document fail to encode.
func TestNoiseJSONNulls(t *testing.T) {
	ms := []noise.Metric{{Name: "reads_per_sec", Unit: "reads/s", Boots: 8, Mean: 2400, CV: 0.05, WithinCV: math.NaN(), LoadR: math.NaN(), MDEPct: []float64{math.Inf(1), 12, 7}}}
	var b strings.Builder
	if err := writeJSON(&b, noiseJSON(4, "noise:x", "stock", 8, ms)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"within_cv": null`, `"5": null`, `"8": 12`, `"cv": 0.05`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %s:\n%s", want, b.String())
		}
	}
}
