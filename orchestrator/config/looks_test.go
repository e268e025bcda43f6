package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// The looks' budget: set by flag, file or environment, refused out of
// range naming the key and where the value came from, and left out of
// the stored configuration when unset.
func TestLooksBudget(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	MustAddFlags(fs, Keys())
	if err := fs.Parse([]string{"--looks.max-minutes", "90", "--looks.max-boots", "40"}); err != nil {
		t.Fatal(err)
	}
	c, _, err := Load("", fs)
	if err != nil {
		t.Fatal(err)
	}
	if c.Looks != (Looks{MaxMinutes: 90, MaxBoots: 40}) || !strings.Contains(c.YAML(), "looks:\n    max_minutes: 90\n    max_boots: 40\n") {
		t.Fatalf("flags gave %+v; stored:\n%s", c.Looks, c.YAML())
	}
	if c, _, err := Load("", nil); err != nil || c.Looks != (Looks{}) || strings.Contains(c.YAML(), "looks") {
		t.Fatalf("unset: %v %+v, stored:\n%s", err, c.Looks, c.YAML())
	}
	for _, bad := range []struct{ flag, value, want string }{
		{"looks.max-minutes", "-1", "config flag --looks.max-minutes: key looks.max_minutes: -1 is out of range 0..10080"},
		{"looks.max-boots", "100001", "config flag --looks.max-boots: key looks.max_boots: 100001 is out of range 0..100000"},
	} {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		MustAddFlags(fs, Keys())
		if err := fs.Parse([]string{"--" + bad.flag, bad.value}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Load("", fs); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--%s %s: %v, want %q", bad.flag, bad.value, err, bad.want)
		}
	}
	file := writeConfig(t, "experiment: x\nlooks:\n  max_boots: -3\n")
	if _, _, err := Load(file, nil); err == nil || !strings.Contains(err.Error(), "line 3, key looks.max_boots: -3 is out of range") {
		t.Errorf("file: %v", err)
	}
	t.Setenv("KREGRESS_LOOKS_MAX_MINUTES", "20")
	if c, _, err := Load("", nil); err != nil || c.Looks.MaxMinutes != 20 {
		t.Errorf("environment: %v %+v", err, c.Looks)
	}
}
