package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// Loader resolves each experiment it is given with the same flags
// overriding it.
func TestLoader(t *testing.T) {
	fs := pflag.NewFlagSet("bisect", pflag.ContinueOnError)
	if err := AddFlags(fs, Keys()); err != nil {
		t.Fatal(err)
	}
	if err := fs.Set(FlagFor("repetitions"), "7"); err != nil {
		t.Fatal(err)
	}
	load := Loader(fs)
	file := writeConfig(t, "repetitions: 3\n")
	for _, e := range []string{"", file} {
		c, err := load(e)
		if err != nil || c.Repetitions != 7 {
			t.Errorf("%q: %+v, %v; want repetitions 7 from the flag", e, c, err)
		}
	}
	if _, err := load("/no/such/experiment.yaml"); err == nil {
		t.Error("a missing experiment loaded")
	}
}

// A fraction where a whole number belongs is refused with its key and
// line: yaml.v3 alone would truncate vm.cpus 3.7 to 3 without a word. A
// float that is whole (8.0, 1e3) is the number it says.
func TestFractionalNumbersRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, key string }{
		{"vm:\n  cpus: 3.7\n", "vm.cpus"},
		{"repetitions: 6.9\n", "repetitions"},
		{"vm:\n  cpus_sweep: [2, 8.5]\n", "vm.cpus_sweep"},
		{"vm:\n  cpus: .inf\n", "vm.cpus"},
	} {
		_, _, err := Load(writeConfig(t, tc.yaml), nil)
		if err == nil || !strings.Contains(err.Error(), "not a whole number") || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%q: %v, want a refusal naming %s", tc.yaml, err, tc.key)
		}
	}
	c, _, err := Load(writeConfig(t, "repetitions: 8.0\n"), nil)
	if err != nil || c.Repetitions != 8 {
		t.Errorf("repetitions 8.0: %v, %v; want 8", c.Repetitions, err)
	}
}
