package pipeline

import (
	"context"
	"errors"
	"fmt"
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
	return &config.Config{Experiment: "mine", Dir: dir, BenchmarkHostDryRun: dryRun, Workload: config.Workload{Name: bench.Name, Duration: config.Duration(4 * time.Second), Benchmark: &d}}
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

// An experiment file runs no program on the host unless the command line
// asks (--benchmark-host-dry-run): host_dry_run alone only says so. When
// asked, the program gets a minimal environment (nothing of kregress's
// nor PostgreSQL's), and the output an error shows has the store's
// password taken out, however the program came by it.
func TestBenchmarkHostDryRunOnlyByFlag(t *testing.T) {
	const secret = "s3cr3t-pw"
	t.Setenv("KREGRESS_STORE", "postgres://u:"+secret+"@db.example/kregress")
	t.Setenv("KREGRESS_CACHE_DIR", "/nowhere")
	t.Setenv("PGPASSWORD", "pg-"+secret)
	for _, exit := range []string{"exit 0", "exit 1"} {
		cfg := benchConfig(t, "", true)
		cfg.Store = "postgres://u:" + secret + "@db.example/kregress"
		marker := filepath.Join(cfg.Dir, "ran")
		script := "#!/bin/sh\ntouch " + marker + "\nenv\necho 'store: postgres://u:" + secret + "@db.example/kregress pg-" + secret + "'\n" + exit + "\n"
		os.WriteFile(filepath.Join(cfg.Dir, "b.sh"), []byte(script), 0o755)

		cfg.BenchmarkHostDryRun = false
		var said []string
		report := func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }
		if err := checkBenchmark(context.Background(), cfg, report); err != nil {
			t.Fatalf("%s, without the flag: %v", exit, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: the program ran on the host without --benchmark-host-dry-run", exit)
		}
		if !strings.Contains(strings.Join(said, "\n"), "--benchmark-host-dry-run") {
			t.Errorf("%s: said %q, want the flag named", exit, said)
		}

		cfg.BenchmarkHostDryRun = true
		err := checkBenchmark(context.Background(), cfg, report)
		if _, serr := os.Stat(marker); serr != nil {
			t.Fatalf("%s: the program did not run with the flag: %v", exit, err)
		}
		if err == nil || !strings.Contains(err.Error(), "dry run on the host") || !strings.Contains(err.Error(), "store: postgres://u:") {
			t.Fatalf("%s: %v, want a refusal showing the output's tail", exit, err)
		}
		for _, leak := range []string{secret, "KREGRESS_", "PGPASSWORD"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%s: the error shows %q:\n%v", exit, leak, err)
			}
		}
		if !strings.Contains(err.Error(), "LC_ALL=C") {
			t.Errorf("%s: the program's environment is not the minimal one:\n%v", exit, err)
		}
	}
}

// A benchmark's copy packs only what lies below the experiment's
// directory, or below a directory the command line allows
// (--benchmark-copy-from); an absolute path, a ../ and a symbolic link
// (to a file or a directory) are refused naming the copy and the path.
func TestBenchmarkCopyConfinedToTheExperiment(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600)
	for name, c := range map[string]struct {
		host  string
		setup func(dir string)
		allow []string
		want  string // "" packed
	}{
		"inside":                   {host: "data", want: ""},
		"absolute":                 {host: filepath.Join(outside, "secret"), want: "is outside the experiment's directory"},
		"absolute /etc/passwd":     {host: "/etc/passwd", want: `host "/etc/passwd" is outside the experiment's directory`},
		"climbing":                 {host: "../" + filepath.Base(outside) + "/secret", want: "climbs out of the experiment's directory"},
		"allowed by the flag":      {host: filepath.Join(outside, "secret"), allow: []string{outside}, want: ""},
		"allowed directory itself": {host: outside, allow: []string{outside}, want: ""},
		"a linked file": {host: "pw", setup: func(dir string) { os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "pw")) },
			want: "pw is a symbolic link"},
		"a linked directory": {host: "data", setup: func(dir string) { os.Symlink(outside, filepath.Join(dir, "data", "out")) },
			want: "data/out is a symbolic link"},
	} {
		cfg := benchConfig(t, "rate: 1", false)
		os.MkdirAll(filepath.Join(cfg.Dir, "data"), 0o755)
		os.WriteFile(filepath.Join(cfg.Dir, "data", "in"), []byte("x"), 0o600)
		if c.setup != nil {
			c.setup(cfg.Dir)
		}
		cfg.BenchmarkCopyFrom = c.allow
		cfg.Workload.Benchmark.Copy = []bench.Copy{{Host: c.host, Guest: "/opt/data"}}
		files, err := benchmarkFiles(context.Background(), cfg)
		if c.want == "" {
			if err != nil || len(files) < 2 {
				t.Errorf("%s: %v %+v, want it packed", name, err, files)
			}
			continue
		}
		var br *BenchmarkRefusedError
		if !errors.As(err, &br) || !strings.Contains(err.Error(), "copy[0]") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal of copy[0] with %q", name, err, c.want)
		}
	}
}

// The loader writes a copy's relative host path as an absolute one
// below the experiment's directory: it is confined the same way.
func TestBenchmarkCopyAbsoluteBelowTheExperiment(t *testing.T) {
	cfg := benchConfig(t, "rate: 1", false)
	os.MkdirAll(filepath.Join(cfg.Dir, "data"), 0o755)
	os.WriteFile(filepath.Join(cfg.Dir, "data", "in"), []byte("x"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(cfg.Dir, "pw"))
	cfg.Workload.Benchmark.Copy = []bench.Copy{{Host: filepath.Join(cfg.Dir, "data"), Guest: "/opt/data"}}
	if files, err := benchmarkFiles(context.Background(), cfg); err != nil || len(files) != 2 {
		t.Fatalf("below the experiment's directory: %+v %v", files, err)
	}
	cfg.Workload.Benchmark.Copy = []bench.Copy{{Host: filepath.Join(cfg.Dir, "pw"), Guest: "/opt/pw"}}
	if _, err := benchmarkFiles(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), filepath.Join(cfg.Dir, "pw")+" is a symbolic link") {
		t.Fatalf("a link below the experiment's directory: %v", err)
	}
}
