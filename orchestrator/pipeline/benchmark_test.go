package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/guest/workload/bench"
	"github.com/kregress/kregress/orchestrator/config"
)

// benchConfig is an experiment whose benchmark is a shell script of the
// test's, printing out.
func benchConfig(t *testing.T, out string, dryRun bool) *config.Config {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.sh"), []byte("#!/bin/sh\necho '"+out+"'\n"), 0o755)
	var d bench.Decl
	src := "program: ./b.sh\nruns: 2\noutput: {format: regexp, regexp: 'rate: (?P<r>[0-9.]+)'}\nmetrics:\n  - {name: rate, from: r, unit: ops/s, better: higher}\n"
	if dryRun {
		src += "host_dry_run: true\n"
	}
	if err := yaml.Unmarshal([]byte(src), &d); err != nil {
		t.Fatal(err)
	}
	d.WithDefaults()
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	return &config.Config{Experiment: "mine", Dir: dir, Workload: config.Workload{Name: bench.Name, Duration: config.Duration(4 * time.Second), Benchmark: &d}}
}

func TestBenchmarkAgentCommand(t *testing.T) {
	cfg := benchConfig(t, "rate: 5", false)
	cmd, err := AgentCommand(cfg.Workload)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(cmd)
	if len(f) != 7 || strings.Join(f[:5], " ") != "/bin/kagent run benchmark -duration 4s" || f[5] != "-spec" {
		t.Fatalf("command %q", cmd)
	}
	d, err := bench.Decode(f[6])
	if err != nil || d.Program != bench.GuestDir+"/b.sh" {
		t.Fatalf("the guest's declaration: %+v %v", d, err)
	}
	w := cfg.Workload
	w.Params = map[string]string{"spec": "x"}
	if _, err := AgentCommand(w); err == nil || !strings.Contains(err.Error(), `unknown parameter "spec"`) {
		t.Fatalf("spec through params: %v", err)
	}
	w = cfg.Workload
	w.Benchmark = nil
	if _, err := AgentCommand(w); err == nil {
		t.Fatal("a benchmark without its declaration")
	}
}

func TestCheckBenchmark(t *testing.T) {
	quiet := func(string, ...any) {}
	if err := checkBenchmark(context.Background(), benchConfig(t, "rate: 5", true), quiet); err != nil {
		t.Fatalf("a benchmark whose output parses: %v", err)
	}
	// Without host_dry_run the output is not looked at here.
	if err := checkBenchmark(context.Background(), benchConfig(t, "nothing", false), quiet); err != nil {
		t.Fatalf("no dry run: %v", err)
	}
	for name, c := range map[string]struct {
		cfg  *config.Config
		want string
	}{
		"does not parse": {benchConfig(t, "speed: 5", true), `regexp "r" not found in the output; it ends:` + "\nspeed: 5"},
		"no program": {func() *config.Config {
			c := benchConfig(t, "", false)
			c.Workload.Benchmark.Program = "./gone.sh"
			return c
		}(), "program ./gone.sh: stat"},
		"no copy": {func() *config.Config {
			c := benchConfig(t, "", false)
			c.Workload.Benchmark.Copy = []bench.Copy{{Host: "missing-dir", Guest: "/opt/d"}}
			return c
		}(), "copy[0]"},
	} {
		err := checkBenchmark(context.Background(), c.cfg, quiet)
		var br *BenchmarkRefusedError
		if !errors.As(err, &br) || !Refused(err) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "experiment mine: ") {
			t.Errorf("%s: %v, want a refusal with %q", name, err, c.want)
		}
	}
}

func TestBenchmarkFilesForTheImage(t *testing.T) {
	cfg := benchConfig(t, "rate: 1", false)
	os.MkdirAll(filepath.Join(cfg.Dir, "data"), 0o755)
	os.WriteFile(filepath.Join(cfg.Dir, "data", "in"), []byte("x"), 0o600)
	cfg.Workload.Benchmark.Copy = []bench.Copy{{Host: "data", Guest: "/opt/data"}}
	files, err := benchmarkFiles(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != bench.GuestDir+"/b.sh" || files[1].Name != "/opt/data/in" || files[1].Mode != 0o600 || !files[0].Packed {
		t.Fatalf("%+v", files)
	}
	cfg.Workload.Benchmark = nil
	if files, err := benchmarkFiles(context.Background(), cfg); files != nil || err != nil {
		t.Fatalf("no benchmark: %v %v", files, err)
	}
}
