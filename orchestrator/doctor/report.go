package doctor

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

// Checkup is one `kregress doctor`: the host it checks (Env) for what a
// run of the configuration needs (Settings), whether it prints JSON
// (else Write's text) and whether a warning fails it too (Strict).
type Checkup struct {
	Env      Env
	Settings Settings
	JSON     bool
	Strict   bool
}

// Report runs the checks (Run), prints them on w and returns the
// verdict: ExitError(ExitFailure) when a check failed (Failed, a
// warning too when Strict), nil otherwise.
func (c Checkup) Report(w io.Writer) error {
	checks := Run(c.Env, c.Settings)
	if err := format.JSONOr(w, c.JSON, checks, func(w io.Writer) error { return Write(w, checks) }); err != nil {
		return err
	}
	if Failed(checks, c.Strict) {
		return verdict.ExitError(verdict.ExitFailure)
	}
	return nil
}

// Write prints the checks as `kregress doctor` shows them: a line per
// check, its fix under it, and how many problems (warnings and
// failures) there are.
func Write(w io.Writer, checks []Check) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	problems := 0
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", strings.ToUpper(string(c.Status)), c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(tw, "\t\tfix: %s\n", c.Fix)
		}
		if c.Status == Fail || c.Status == Warn {
			problems++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if problems == 0 {
		_, err := fmt.Fprintln(w, "\nno problems found")
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d problem(s): see each fix above\n", problems)
	return err
}
