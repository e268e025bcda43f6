package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// decl reads a workload.benchmark block as the experiment file would.
func decl(t testing.TB, src string) *Decl {
	t.Helper()
	var d Decl
	if err := yaml.Unmarshal([]byte(src), &d); err != nil {
		t.Fatal(err)
	}
	d.WithDefaults()
	return &d
}

const hackbenchDecl = `program: hackbench
args: [-g, "2", -l, "100"]
runs: 3
output:
  format: regexp
  regexp: 'Time: (?P<secs>[0-9.]+)'
metrics:
  - {name: hackbench_time_s, from: secs, unit: s, better: lower}
`

func TestCheckRefusesNamingTheLine(t *testing.T) {
	for name, c := range map[string]struct{ src, key, want string }{
		"no direction":  {strings.Replace(hackbenchDecl, ", better: lower", "", 1), "metrics[0]", "better must be declared"},
		"bad direction": {strings.Replace(hackbenchDecl, "better: lower", "better: down", 1), "metrics[0]", `better "down"`},
		"no unit":       {strings.Replace(hackbenchDecl, "unit: s, ", "", 1), "metrics[0]", "unit must be declared"},
		"no group":      {strings.Replace(hackbenchDecl, "from: secs", "from: seconds", 1), "metrics[0]", "no named group"},
		"bad regexp":    {strings.Replace(hackbenchDecl, "(?P<secs>[0-9.]+)", "(?P<secs>[0-9.]+", 1), "output.regexp", "missing closing )"},
		"no groups":     {strings.Replace(hackbenchDecl, "(?P<secs>[0-9.]+)", "[0-9.]+", 1), "output.regexp", "named groups"},
		"format":        {strings.Replace(hackbenchDecl, "format: regexp", "format: xml", 1), "output.format", `"xml"`},
		"runs":          {strings.Replace(hackbenchDecl, "runs: 3", "runs: 5000", 1), "runs", "out of range 1..1000"},
		"timeout":       {hackbenchDecl + "timeout: 2h\n", "timeout", "want a duration"},
		"no program":    {strings.Replace(hackbenchDecl, "program: hackbench", "program: ''", 1), "program", "must name"},
		"no metrics":    {hackbenchDecl[:strings.Index(hackbenchDecl, "metrics:")] + "metrics: []\n", "metrics", "at least one"},
		"metric name":   {strings.Replace(hackbenchDecl, "name: hackbench_time_s", "name: 'a b'", 1), "metrics[0]", "metric name"},
		"irqsoff name":  {strings.Replace(hackbenchDecl, "name: hackbench_time_s", "name: irqsoff_worst_us", 1), "metrics[0]", "irqs-off"},
		"json path":     {strings.Replace(strings.Replace(hackbenchDecl, "format: regexp", "format: json", 1), "  regexp: 'Time: (?P<secs>[0-9.]+)'\n", "", 1), "", ""},
		"bad path":      {strings.Replace(strings.Replace(strings.Replace(hackbenchDecl, "format: regexp", "format: json", 1), "  regexp: 'Time: (?P<secs>[0-9.]+)'\n", "", 1), "from: secs", "from: a..b", 1), "metrics[0]", "empty step"},
		"copy guest":    {hackbenchDecl + "copy: [{host: x, guest: /etc/x}]\n", "copy[0]", "outside the image's own"},
	} {
		t.Run(name, func(t *testing.T) {
			d := decl(t, c.src)
			err := d.Check()
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var be *Error
			if !errors.As(err, &be) || be.Key != c.key || !strings.Contains(be.Msg, c.want) || be.Line == 0 {
				t.Fatalf("got %v (%#v), want key %s, a line and %q", err, be, c.key, c.want)
			}
		})
	}
}

func TestCheckLinesPointAtTheMetric(t *testing.T) {
	src := strings.Replace(hackbenchDecl, "metrics:\n", "metrics:\n  - {name: ok_s, from: secs, unit: s, better: lower}\n", 1)
	src = strings.Replace(src, ", better: lower}\n", "}\n", 2)
	src = strings.Replace(src, "{name: ok_s, from: secs, unit: s}", "{name: ok_s, from: secs, unit: s, better: lower}", 1)
	d := decl(t, src)
	var be *Error
	if err := d.Check(); !errors.As(err, &be) || be.Key != "metrics[1]" || be.Line != 9 {
		t.Fatalf("got %v (%+v), want metrics[1] at line 9", err, be)
	}
}

func TestGoBenchUnitsImplyDirection(t *testing.T) {
	d := decl(t, `program: ./b
output: {format: gobench}
metrics:
  - {name: enc_ns, from: "BenchmarkEncode ns/op"}
  - {name: enc_mbs, from: "BenchmarkEncode MB/s"}
  - {name: enc_custom, from: "BenchmarkEncode frobs/op"}
`)
	err := d.Check()
	if err == nil || !strings.Contains(err.Error(), "frobs/op implies none") {
		t.Fatalf("a custom unit without direction: %v", err)
	}
	d.Metrics = d.Metrics[:2]
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if d.Metrics[0].Better != "lower" || d.Metrics[0].Unit != "ns/op" || d.Metrics[1].Better != "higher" {
		t.Fatalf("implied: %+v", d.Metrics)
	}
	p, _ := NewParser(d)
	got, err := p.Parse([]byte("goos: linux\nBenchmarkEncode-8   1000  1500 ns/op  20.5 MB/s\nBenchmarkEncode-8  1000  1700 ns/op  19.5 MB/s\nBenchmarkEncode-8  1000  1600 ns/op  21 MB/s\nPASS\n"))
	if err != nil || got["enc_ns"] != 1600 || got["enc_mbs"] != 20.5 {
		t.Fatalf("got %v %v, want the medians 1600 ns/op and 20.5 MB/s", got, err)
	}
}

func TestParseJSONAndYAMLPaths(t *testing.T) {
	fio := decl(t, `program: fio
output: {format: json}
metrics:
  - {name: write_iops, from: jobs.0.write.iops, unit: ops/s, better: higher}
  - {name: write_lat_us, from: jobs.0.write.lat_ns.mean, unit: us, better: lower, scale: 0.001}
  - {name: write_p99_us, from: "jobs.0.write.clat_ns.percentile.[99.000000]", unit: us, better: lower, scale: 0.001}
`)
	if err := fio.Check(); err != nil {
		t.Fatal(err)
	}
	p, _ := NewParser(fio)
	got, err := p.Parse([]byte(`note: a line before the document
{"jobs": [{"jobname": "w", "write": {"iops": 1234.5, "lat_ns": {"mean": 8100.0}, "clat_ns": {"percentile": {"99.000000": 20000}}}}]}`))
	if err != nil || got["write_iops"] != 1234.5 || got["write_lat_us"] != 8.1 || got["write_p99_us"] != 20 {
		t.Fatalf("fio: %v %v", got, err)
	}
	if _, err := p.Parse([]byte(`{"jobs": [{"write": {"iops": 1}}]}`)); err == nil || !strings.Contains(err.Error(), "write_lat_us") {
		t.Fatalf("a missing value must be an error naming the metric, not a zero: %v", err)
	}
	sng := decl(t, `program: stress-ng
output: {format: yaml}
metrics:
  - {name: fork_ops_per_sec, from: "metrics.[stressor=fork].bogo-ops-per-second-real-time", unit: ops/s, better: higher}
`)
	if err := sng.Check(); err != nil {
		t.Fatal(err)
	}
	p, _ = NewParser(sng)
	got, err = p.Parse([]byte("---\nmetrics:\n    - stressor: context\n      bogo-ops-per-second-real-time: 1595.4\n    - stressor: fork\n      bogo-ops-per-second-real-time: 208.3\n...\n"))
	if err != nil || got["fork_ops_per_sec"] != 208.3 {
		t.Fatalf("stress-ng: %v %v", got, err)
	}
}

func TestParseRefusesWhatIsNotANumber(t *testing.T) {
	d := decl(t, hackbenchDecl)
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	p, _ := NewParser(d)
	for _, out := range []string{"", "Time: \n", "nothing here", strings.Repeat("x", MaxOutput+1)} {
		if v, err := p.Parse([]byte(out)); err == nil {
			t.Errorf("%.40q parsed as %v", out, v)
		}
	}
	if v, err := p.Parse([]byte("Running...\nTime: 0.242\n")); err != nil || v["hackbench_time_s"] != 0.242 {
		t.Errorf("hackbench's output: %v %v", v, err)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	d := decl(t, hackbenchDecl+"host_dry_run: true\ncopy: [{host: ./data, guest: /opt/data}]\n")
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	g := d.Guest()
	back, err := Decode(g.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if back.Program != GuestDir+"/hackbench" || back.HostDryRun || back.Copy[0].Host != "" || back.Copy[0].Guest != "/opt/data" || back.Metrics[0].Name != "hackbench_time_s" {
		t.Fatalf("decoded %+v", back)
	}
	for _, bad := range []string{"", "!!", strings.Repeat("A", MaxSpecSize+1), Decl{Program: "x"}.Encode()} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%.20q) accepted", bad)
		}
	}
}

// script writes an executable shell script (the host's /bin/sh) into a
// temporary directory.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bench.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMeasureMediansOfRealRuns(t *testing.T) {
	dir := t.TempDir()
	counter := filepath.Join(dir, "n")
	// Run i prints Time: i (1, 2, ...); the first is a warm-up.
	prog := script(t, `n=$(cat `+counter+` 2>/dev/null || echo 0); n=$((n+1)); echo $n > `+counter+`; echo "Time: $n"`+"\n")
	d := decl(t, strings.Replace(hackbenchDecl, "program: hackbench", "program: "+prog, 1)+"warmup: 1\n")
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	ms, err := Measure(context.Background(), d, Exec)
	if err != nil {
		t.Fatal(err)
	}
	// Runs 2, 3, 4 are measured: their median is 3.
	if len(ms) != 1 || ms[0].Name != "hackbench_time_s" || ms[0].Value != 3 || ms[0].Direction != "lower" || ms[0].Unit != "s" {
		t.Fatalf("metrics %+v", ms)
	}
}

func TestMeasureErrorsCarryTheTail(t *testing.T) {
	for name, c := range map[string]struct{ body, timeout, want string }{
		"unparsable": {"echo 'Time: soon'\n", "", "does not parse"},
		"failing":    {"echo dying words; exit 3\n", "", "dying words"},
		"hanging":    {"echo started; sleep 30\n", "timeout: 300ms\n", "timed out after 300ms"},
	} {
		t.Run(name, func(t *testing.T) {
			d := decl(t, strings.Replace(hackbenchDecl, "program: hackbench", "program: "+script(t, c.body), 1)+c.timeout)
			if err := d.Check(); err != nil {
				t.Fatal(err)
			}
			ms, err := Measure(context.Background(), d, Exec)
			if err == nil || !strings.Contains(err.Error(), c.want) || ms != nil {
				t.Fatalf("got %v %v, want an error with %q", ms, err, c.want)
			}
			if name != "hanging" && !strings.Contains(err.Error(), "it ends") && !strings.Contains(err.Error(), "output ends") {
				t.Fatalf("no output tail: %v", err)
			}
		})
	}
}

func TestTail(t *testing.T) {
	if got := Tail([]byte("a\nbb\nccc\n"), 5); got != "...ccc\n" {
		t.Fatalf("%q", got)
	}
	if got := Tail([]byte("short"), 10); got != "short" {
		t.Fatalf("%q", got)
	}
}

func TestParsePath(t *testing.T) {
	for p, want := range map[string]int{"a": 1, "jobs.0.read.iops": 4, "m.[s=fork].x": 3, "p.[99.000000]": 2, "[a.b]": 1} {
		if steps, err := parsePath(p); err != nil || len(steps) != want {
			t.Errorf("%q: %d steps %v, want %d", p, len(steps), err, want)
		}
	}
	for _, bad := range []string{"", ".", "a.", ".a", "a..b", "[a", "[]", "[=x]", "[a]b", strings.Repeat("a.", 70) + "a"} {
		if _, err := parsePath(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Run measures untraced (warm-up and runs), then repeats the program
// under the irqsoff tracer, its first traced run never cut; the document
// holds the declared metric and the irqs-off figures.
func TestRunHalves(t *testing.T) {
	dir := t.TempDir()
	for f, v := range map[string]string{"available_tracers": "irqsoff nop", "tracing_on": "0", "current_tracer": "nop", "tracing_max_latency": "0", "trace": ""} {
		os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644)
	}
	d := decl(t, hackbenchDecl+"warmup: 1\n")
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	var tracers []string
	slow := false
	run := func(ctx context.Context, d *Decl) ([]byte, error) {
		v, _ := os.ReadFile(filepath.Join(dir, "current_tracer"))
		tracers = append(tracers, string(v))
		if string(v) == "irqsoff" && !slow {
			// Longer than the traced half: still a whole run.
			slow = true
			select {
			case <-time.After(400 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return []byte("Time: 2.5\n"), nil
	}
	doc, err := Run(context.Background(), Params{Spec: d.Guest().Encode(), Duration: 400 * time.Millisecond, Window: 100 * time.Millisecond, Tracefs: dir}, run)
	if err != nil {
		t.Fatal(err)
	}
	untraced := tracers[:4]
	for _, tr := range untraced {
		if tr != "nop" {
			t.Fatalf("warm-up and runs under the tracer: %v", tracers)
		}
	}
	if len(tracers) < 5 || tracers[4] != "irqsoff" {
		t.Fatalf("no traced run: %v", tracers)
	}
	got := map[string]float64{}
	for _, m := range doc.Metrics {
		got[m.Name] = m.Value
	}
	if got["hackbench_time_s"] != 2.5 || doc.Irqsoff == nil || doc.Params["traced_runs"] == "0" || doc.Workload != Name {
		t.Fatalf("document %+v %v", doc.Params, got)
	}
	if _, ok := got["irqsoff_worst_us"]; !ok {
		t.Fatalf("no irqs-off metric: %v", got)
	}
}
