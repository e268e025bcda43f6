package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/verdict"
)

const benchExperiment = `experiment: mine
family: rstat
workload:
  name: benchmark
  duration: 4s
  benchmark:
    program: hackbench
    output:
      format: regexp
      regexp: 'Time: (?P<t>[0-9.]+)'
    metrics:
      - {name: time_s, from: t, unit: s, better: lower}
      - {name: time_info, from: t, unit: s, better: info}
`

func loadText(t *testing.T, text string) (*Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := Load(p, nil)
	return c, err
}

func TestBenchmarkDeclaration(t *testing.T) {
	c, err := loadText(t, benchExperiment)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.DefaultPrimaryMetrics(); len(got) != 1 || got[0] != "time_s" {
		t.Fatalf("primary %v", got)
	}
	var names []string
	for _, s := range c.WorkloadMetrics() {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "time_s time_info irqsoff_worst_us irqsoff_window_p50_us" {
		t.Fatalf("metrics %v", names)
	}
	// The stored configuration reloads (results show --config).
	if _, err := loadText(t, c.YAML()); err != nil {
		t.Fatalf("stored configuration: %v", err)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"no direction":   {strings.Replace(benchExperiment, ", better: lower", "", 1), "line 12, key workload.benchmark.metrics[0]: time_s: better must be declared"},
		"unknown key":    {strings.Replace(benchExperiment, "    program:", "    programme: x\n    program:", 1), "programme"},
		"primary info":   {benchExperiment + "primary_metrics: [time_info]\n", `"time_info" is not a judged metric`},
		"no declaration": {benchExperiment[:strings.Index(benchExperiment, "  benchmark:")], "line 4, key workload.name: workload benchmark needs workload.benchmark"},
		"not benchmark":  {strings.Replace(benchExperiment, "name: benchmark", "name: rstat", 1), "is for workload.name benchmark"},
	} {
		_, err := loadText(t, tc.text)
		var fe *FileError
		if !errors.As(err, &fe) || fe.ExitStatus() != verdict.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
