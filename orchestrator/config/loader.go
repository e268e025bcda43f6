package config

import "github.com/spf13/pflag"

// Loader resolves experiments by name (a built-in experiment or a file,
// as Load's file) with flags bound: how a command that measures several
// experiments (seeds, a nightly, its bisects) resolves each of them with
// the options it was given.
func Loader(flags *pflag.FlagSet) func(experiment string) (*Config, error) {
	return func(experiment string) (*Config, error) {
		cfg, _, err := Load(experiment, flags)
		return cfg, err
	}
}
