package doctor

import (
	"fmt"
	"io"
	"strings"

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

// Report runs the checks (RunEach), prints them on w and returns the
// verdict: ExitError(ExitFailure) when a check failed (Failed, a
// warning too when Strict), nil otherwise. Text is printed a line per
// check as each ends (the package query and the store take seconds on a
// loaded host); JSON once every check has.
func (c Checkup) Report(w io.Writer) error {
	var done func(Check)
	if !c.JSON {
		done = func(ch Check) { writeCheck(w, ch) }
	}
	checks := RunEach(c.Env, c.Settings, done)
	var err error
	if c.JSON {
		err = format.IndentedJSON(w, checks)
	} else {
		err = writeSummary(w, checks)
	}
	if err != nil {
		return err
	}
	if Failed(checks, c.Strict) {
		return verdict.ExitError(verdict.ExitFailure)
	}
	return nil
}

// nameWidth is the widest check name ("kernel source"): the column the
// details start in, fixed so that each line can be printed as its check
// ends.
const nameWidth = 13

// Write prints the checks as `kregress doctor` shows them: a line per
// check, its fix under it, then the summary (writeSummary).
func Write(w io.Writer, checks []Check) error {
	for _, c := range checks {
		if err := writeCheck(w, c); err != nil {
			return err
		}
	}
	return writeSummary(w, checks)
}

// writeCheck prints one check's line, and its fix under it.
func writeCheck(w io.Writer, c Check) error {
	if _, err := fmt.Fprintf(w, "%-4s  %-*s  %s\n", strings.ToUpper(string(c.Status)), nameWidth, c.Name, c.Detail); err != nil {
		return err
	}
	if c.Fix != "" {
		_, err := fmt.Fprintf(w, "%-4s  %-*s  fix: %s\n", "", nameWidth, "", c.Fix)
		return err
	}
	return nil
}

// writeSummary says how many problems (failed checks: a run would fail)
// and, apart, how many warnings (kregress works, less well) there are.
func writeSummary(w io.Writer, checks []Check) error {
	problems, warnings := 0, 0
	for _, c := range checks {
		switch c.Status {
		case Fail:
			problems++
		case Warn:
			warnings++
		}
	}
	var err error
	switch {
	case problems == 0 && warnings == 0:
		_, err = fmt.Fprintln(w, "\nno problems found")
	case problems == 0:
		_, err = fmt.Fprintf(w, "\nno problems found; %d warning(s): kregress runs, less well (see each fix above; --strict exits 1 on them)\n", warnings)
	case warnings == 0:
		_, err = fmt.Fprintf(w, "\n%d problem(s): a run would fail; see each fix above\n", problems)
	default:
		_, err = fmt.Fprintf(w, "\n%d problem(s): a run would fail, and %d warning(s); see each fix above\n", problems, warnings)
	}
	return err
}
