package config

import "github.com/spf13/pflag"

// Loader is Load bound to a command's flags, for a command that measures
// in experiments other than its own -c (a resumed bisect's, a night's, a
// seed set's): each is resolved with the same flag overrides.
func Loader(flags *pflag.FlagSet) func(experiment string) (*Config, error) {
	return func(experiment string) (*Config, error) {
		cfg, _, err := Load(experiment, flags)
		return cfg, err
	}
}
