package store

import (
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/results"
)

// WriteReproducibleConfig writes run's configuration as `run -c` should
// read it again (ReproducibleConfig) to w, and its note, if any, to say
// (stderr): the text stays a configuration a shell can redirect to a
// file.
func WriteReproducibleConfig(w, say io.Writer, run *results.Run) error {
	text, note := ReproducibleConfig(run.Config)
	if note != "" {
		fmt.Fprintf(say, "kregress: run %d: %s\n", run.ID, note)
	}
	_, err := io.WriteString(w, text)
	return err
}

// ReproducibleConfig is a stored configuration as `run -c` should read it
// again. Its PostgreSQL store had its password replaced by
// Redacted when it was stored: reproduced as is, the run would
// connect with that marker as its password. The store is printed
// without a password (the client then takes it from PGPASSWORD or
// ~/.pgpass), with a comment and a note saying it must be supplied.
func ReproducibleConfig(config string) (text, note string) {
	lines := strings.SplitAfter(config, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "store:") {
			continue // only the top-level key
		}
		var v struct {
			Store string `yaml:"store"`
		}
		if yaml.Unmarshal([]byte(line), &v) != nil || !IsPostgres(v.Store) || !HasRedactedPassword(v.Store) {
			return config, ""
		}
		bare := StripPassword(v.Store)
		out, err := yaml.Marshal(map[string]string{"store": bare})
		if err != nil {
			return config, ""
		}
		lines[i] = "# The store's password was redacted when the run was stored: supply it\n" +
			"# with PGPASSWORD or ~/.pgpass, or the full DSN with --store or KREGRESS_STORE.\n" + string(out)
		return strings.Join(lines, ""), fmt.Sprintf("the store's password (%s) was redacted when the run was stored and is not in this configuration: supply it with PGPASSWORD or ~/.pgpass, or the full DSN with --store or KREGRESS_STORE", bare)
	}
	return config, ""
}
