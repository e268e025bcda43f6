package config

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// goSpeak is what a user must never have to read in an error about their
// configuration: Go's parse functions, YAML tags, Go type and struct names.
var goSpeak = regexp.MustCompile(`strconv\.|!!\w+|type config\.|config\.[A-Z]|patches\.[A-Z]|\bfloat64\b|\bint64\b|\bmap\[|\[\]string|mapstructure|invalid syntax`)

// The audit's inputs: a bad file, a bad environment value, a bad flag
// value. Each error names the key and the value in the user's words.
func TestConfigErrorsSpeakNoGo(t *testing.T) {
	files := map[string]struct{ text, want string }{
		"mistyped key":       {"vm:\n  cpu: 4\n", "key vm.cpu: no such key (did you mean vm.cpus?)"},
		"text for a number":  {"repetitions: five\n", `key repetitions: "five" is not a whole number`},
		"list for a number":  {"vm:\n  cpus: [1]\n", "key vm.cpus: a list is not a whole number"},
		"value for section":  {"vm: 3\n", `key vm: is a section`},
		"text in a map":      {"noise_floor_pct: {a: x}\n", `"x" is not a number`},
		"list for text":      {"experiment: [a]\n", "a list is not text"},
		"duplicate key":      {"vm:\n  cpus: 2\n  cpus: 3\n", "line 3"},
		"a family's variant": {"families:\n  x:\n    workload: rstat\n    baseline: a\n    variants:\n      a: {patchez: []}\n", "key families.x.variants.a.patchez: no such key"},
		"bool":               {"gate_only: maybe\n", `"maybe" is not true or false`},
	}
	for name, tc := range files {
		_, _, err := Load(writeConfig(t, tc.text), nil)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || goSpeak.MatchString(err.Error()) {
			t.Errorf("%s: %q: want it to say %q and no Go", name, err, tc.want)
		}
	}
	for env, want := range map[string]string{
		"KREGRESS_REPETITIONS=abc":   `environment KREGRESS_REPETITIONS: key repetitions: "abc" is not a whole number`,
		"KREGRESS_VM_CPUS=1.5":       `"1.5" is not a whole number`,
		"KREGRESS_VM_MEMORY_MB=-1":   "vm.memory_mb",
		"KREGRESS_GATE_ONLY=perhaps": `"perhaps" is not true or false`,
		"KREGRESS_NOISE_FLOOR_PCT=x": "a mapping cannot be set from the environment",
	} {
		k, v, _ := strings.Cut(env, "=")
		t.Setenv(k, v)
		_, _, err := Load("", nil)
		if err == nil || !strings.Contains(err.Error(), want) || goSpeak.MatchString(err.Error()) {
			t.Errorf("%s: %v: want it to say %q and no Go", env, err, want)
		}
		t.Setenv(k, "")
	}
	// A flag's own type is checked by the flag parser; a text flag that
	// viper decodes into a number names the value too.
	flags := pflag.NewFlagSet("x", pflag.ContinueOnError)
	if err := AddFlags(flags, Keys()); err != nil {
		t.Fatal(err)
	}
	if err := flags.Parse([]string{"--workload.duration", "soon"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load("", flags); err == nil || !strings.Contains(err.Error(), "flag --workload.duration") || goSpeak.MatchString(err.Error()) {
		t.Errorf("--workload.duration soon: %v", err)
	}
	flags = pflag.NewFlagSet("x", pflag.ContinueOnError)
	if err := AddFlags(flags, Keys()); err != nil {
		t.Fatal(err)
	}
	if err := flags.Parse([]string{"--noise-floor-pct", "reads_per_sec=abc"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load("", flags); err == nil || !strings.Contains(err.Error(), `flag --noise-floor-pct: key noise_floor_pct: reads_per_sec: "abc" is not a number`) || goSpeak.MatchString(err.Error()) {
		t.Errorf("--noise-floor-pct reads_per_sec=abc: %v", err)
	}
}

// A KREGRESS_ variable no key reads is warned about, with the key it
// was probably meant for; the keys' own and kregress's other variables
// are not.
func TestUnknownEnv(t *testing.T) {
	got := UnknownEnv([]string{"KREGRESS_VM_CPU=4", "KREGRESS_VM_CPUS=2", "KREGRESS_STORE=x", "KREGRESS_BIN=/b", "HOME=/h", "KREGRESS_ZZZZZZZZZZZ=1"})
	if len(got) != 2 || !strings.Contains(got[0], "KREGRESS_VM_CPU is set but no configuration key reads it") || !strings.Contains(got[0], "did you mean KREGRESS_VM_CPUS?") ||
		!strings.Contains(got[1], "KREGRESS_ZZZZZZZZZZZ") || strings.Contains(got[1], "did you mean") {
		t.Errorf("warnings: %q", got)
	}
}
