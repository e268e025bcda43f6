package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
)

// builtinWorkloads are the four built-in workloads the golden files pin,
// one file each where the output is one workload's; the files that list
// every workload (metrics.txt, the help texts, refusals.txt) change when
// a workload is added, on purpose: regenerate them and read the diff.
var builtinWorkloads = []string{"rstat", "execve", "cgroup-attach", "lru-drain"}

// scrub replaces this machine's paths (the isolated results and cache
// dirs, the test binary's directory where kagent is looked for) with
// placeholders, so that the golden files hold only what the workloads
// decide.
func scrub(out, dir string) string {
	out = strings.ReplaceAll(out, dir, "$RESULTS")
	if exe, err := os.Executable(); err == nil {
		out = strings.ReplaceAll(out, filepath.Dir(exe), "$EXEDIR")
	}
	return out
}

// What the workloads' descriptions feed into the CLI's outputs: the
// metric tables, the experiments table, the resolved default
// configuration and the help texts that name the workloads. Each is
// pinned byte for byte, so that moving where a workload is described
// cannot change what a user sees.
func TestWorkloadOutputsGolden(t *testing.T) {
	dir := isolate(t)
	fakeKVM(t, "fake: no /dev/kvm")
	cases := []struct {
		file string
		args []string
	}{
		{"metrics.txt", []string{"metrics"}},
		{"metrics.json", []string{"metrics", "-f", "json"}},
		{"metrics-c-cpuset-attach.txt", []string{"metrics", "-c", "cpuset-attach"}},
		{"experiments.txt", []string{"experiments"}},
		{"experiments.json", []string{"experiments", "--json"}},
		{"config-default.txt", []string{"config"}},
		{"help-metrics.txt", []string{"metrics", "--help"}},
		{"help-init.txt", []string{"init", "--help"}},
	}
	for _, w := range builtinWorkloads {
		cases = append(cases,
			struct {
				file string
				args []string
			}{"metrics-" + w + ".txt", []string{"metrics", w}},
			struct {
				file string
				args []string
			}{"metrics-" + w + ".json", []string{"metrics", w, "-f", "json"}})
	}
	for _, c := range cases {
		out, err := runInProcess(c.args...)
		if err != nil {
			t.Errorf("%v: %v\n%s", c.args, err, out)
			continue
		}
		testfile.Golden(t, filepath.Join("testdata", "workloads", c.file), scrub(out, dir))
	}
}

// The refusals whose words come from a workload's description: metric
// names an experiment may judge, unknown workloads and parameters, and
// the parameters' bounds, each as the user reads it.
func TestWorkloadRefusalsGolden(t *testing.T) {
	dir := isolate(t)
	var b strings.Builder
	configs := map[string]string{}
	for _, w := range builtinWorkloads {
		configs["primary-"+w] = "workload:\n  name: " + w + "\nprimary_metrics: [no_such_metric]\n"
		configs["floor-"+w] = "workload:\n  name: " + w + "\nnoise_floor_pct: {no_such_metric: 5}\n"
	}
	configs["primary-info"] = "workload:\n  name: rstat\nprimary_metrics: [reads_total]\n"
	configs["primary-other-workload"] = "workload:\n  name: execve\nprimary_metrics: [rstat_lock_hold_p50_us]\n"
	configs["unknown-workload"] = "workload:\n  name: nope\n"
	for _, name := range sortedKeys(configs) {
		file := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(file, []byte(configs[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"config", "-c", file}, {"metrics", "-c", file}} {
			out, err := runInProcess(args...)
			b.WriteString("$ kregress " + strings.Join(args[:len(args)-1], " ") + " " + name + ".yaml\n")
			if err != nil {
				b.WriteString("error: " + err.Error() + "\n")
			} else {
				b.WriteString("ok\n")
				_ = out
			}
		}
	}
	for _, w := range append(append([]string(nil), builtinWorkloads...), "nope") {
		for _, params := range []map[string]string{nil, {"no-such-param": "1"}, {"window": "-1s"}, {"readers": "-1"}, {"workers": "9999"}, {"trigger": "bogus"}, {"pause": "1h"}, {"movers": "-1"}} {
			cmd, err := pipeline.AgentCommand(config.Workload{Name: w, Duration: config.Duration(10e9), Params: params})
			b.WriteString("AgentCommand " + w + " " + renderParams(params) + ": ")
			if err != nil {
				b.WriteString("error: " + err.Error() + "\n")
			} else {
				b.WriteString(cmd + "\n")
			}
		}
	}
	for _, w := range builtinWorkloads {
		cfg := config.Config{Workload: config.Workload{Name: w}}
		b.WriteString("judged primary of " + w + ": " + strings.Join(cfg.JudgedPrimary(), ",") + "; fallback: " + strings.Join(workload.FallbackPrimary(w), ",") + "\n")
	}
	b.WriteString("any workload's primary: " + strings.Join(workload.AnyPrimary(), ",") + "\n")
	testfile.Golden(t, filepath.Join("testdata", "workloads", "refusals.txt"), scrub(b.String(), dir))
}

// The guest's side as the host reads it: every workload's usage line
// (kagent run NAME [-param V]...) and its parameters' documentation.
func TestWorkloadParamsGolden(t *testing.T) {
	var b strings.Builder
	for _, w := range workload.All() {
		b.WriteString(w.Usage() + "\n")
		for _, s := range w.Params() {
			b.WriteString("  " + s.Usage() + "\n")
		}
	}
	testfile.Golden(t, filepath.Join("testdata", "workloads", "params.txt"), b.String())
}

func renderParams(p map[string]string) string {
	if len(p) == 0 {
		return "{}"
	}
	var parts []string
	for _, k := range sortedKeys(p) {
		parts = append(parts, k+"="+p[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}
