package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goText is what a user must never read in an error: the text of Go's
// parsers and decoders, YAML's tags and Go type names.
var goText = regexp.MustCompile(`strconv\.|!!(str|int|float|bool|seq|map|binary)|type config\.|unmarshal|(^|[\s(])(yaml|json): |\b(config|results|pipeline|store|vm|patches)\.[A-Z][A-Za-z]+\b|reflect\.|time: invalid`)

// TestNoGoTextInUserErrors feeds the newcomer audit's bad inputs (a
// configuration file, environment values, flag values, an unreachable
// PostgreSQL) and checks each is refused in a sentence that names the
// key, with no Go text; the user's mistakes exit 2.
func TestNoGoTextInUserErrors(t *testing.T) {
	store := seed(t)
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		env  []string
		args []string
		code int
		says string
	}{
		{nil, []string{"config", "-c", file("a.yaml", "vm:\n  cpu: 4\nrepetitions: five\n")}, 2, "vm.cpu"},
		{nil, []string{"config", "-c", file("b.yaml", "vm:\n  cpus: [1]\n")}, 2, "vm.cpus"},
		{nil, []string{"config", "-c", file("c.yaml", "executor: 3\n")}, 2, "executor"},
		{nil, []string{"config", "-c", file("d.yaml", "vm: {memory_mb: 1e9999}\nnoise_floor_pct: {a: x}\n")}, 2, "noise_floor_pct"},
		{nil, []string{"config", "-c", file("e.yaml", "repetitions: !!binary aGVsbG8=\nvariants: {a: 1}\n")}, 2, "variants"},
		{nil, []string{"config", "-c", file("f.yaml", "- a\n- b\n")}, 2, "f.yaml"},
		{nil, []string{"config", "-c", file("g.yaml", "workload:\n  duration: ten\n  params: [1]\n")}, 2, "workload.duration"},
		{[]string{"KREGRESS_REPETITIONS=abc"}, []string{"config"}, 2, "KREGRESS_REPETITIONS"},
		{[]string{"KREGRESS_VM_CPUS=x"}, []string{"config"}, 2, "KREGRESS_VM_CPUS"},
		{[]string{"KREGRESS_SEED=-1"}, []string{"config"}, 2, "KREGRESS_SEED"},
		{[]string{"KREGRESS_SELFTESTS_RERUN_FAILURES=maybe"}, []string{"config"}, 2, "KREGRESS_SELFTESTS_RERUN_FAILURES"},
		{[]string{"KREGRESS_WORKLOAD_DURATION=ten"}, []string{"config"}, 2, "KREGRESS_WORKLOAD_DURATION"},
		{nil, []string{"config", "--repetitions", "abc"}, 2, "--repetitions"},
		{nil, []string{"config", "--vm.memory-mb", "1.5"}, 2, "--vm.memory-mb"},
		{nil, []string{"config", "--workload.duration", "ten"}, 2, "workload.duration"},
		{nil, []string{"config", "--noise-floor-pct", "a=b"}, 2, "noise_floor_pct"},
		{nil, []string{"config", "--kernel.ccache=maybe"}, 2, "--kernel.ccache"},
		{nil, []string{"diff", "1", "--alpha", "x"}, 2, "--alpha"},
		{nil, []string{"results", "prune", "--older-than", "3x"}, 2, "--older-than"},
		{nil, []string{"results", "list", "--store", "postgres://u@127.0.0.1:1/k?connect_timeout=2"}, 1, "127.0.0.1:1"},
	} {
		out, err := inProcess(t, append([]string{"KREGRESS_STORE=" + store}, c.env...), c.args...)
		for _, kv := range c.env {
			k, _, _ := strings.Cut(kv, "=")
			os.Unsetenv(k)
		}
		if code := exitCodeOf(err); code != c.code || !strings.Contains(out, c.says) {
			t.Errorf("%v %q: exit %d, want %d naming %q:\n%s", c.env, c.args, code, c.code, c.says, out)
		}
		if m := goText.FindString(out); m != "" {
			t.Errorf("%v %q: Go text %q in:\n%s", c.env, c.args, m, out)
		}
		if lines := strings.Count(strings.TrimSpace(out), "\n"); lines > 0 && c.args[0] != "config" {
			t.Errorf("%v %q: %d lines, want one:\n%s", c.env, c.args, lines+1, out)
		}
	}
}
