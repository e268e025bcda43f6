package verdict

import (
	"errors"
	"fmt"
	"io"

	"github.com/kregress/kregress/internal/usage"
)

// ExitError ends a command with its exit status once it has printed why
// (a regression found: ExitRegression).
type ExitError Exit

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// ExitStatus is e's status.
func (e ExitError) ExitStatus() Exit { return Exit(e) }

// End ends a command as its answer v says (its Exit): nil for ExitOK,
// else an ExitError, the reason being printed already.
func End[V Answer](v V) error {
	if e := v.Exit(); e != ExitOK {
		return ExitError(e)
	}
	return nil
}

// ExitOf is the exit status a command ends with on err, the one place an
// error becomes one: nil exits 0; an error that knows its status says it
// (an ExitError; a candidate not measured or a baseline that could not
// be, through their verdict's Exit; an experiment or file the user must
// change: ExitUsage); a usage error (internal/usage, the command line parser's
// own) exits 2; anything else is a failure (1).
func ExitOf(err error) Exit {
	var known interface{ ExitStatus() Exit }
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &known):
		return known.ExitStatus()
	case usage.Is(err), usage.IsParser(err):
		return ExitUsage
	}
	return ExitFailure
}

// Report is how a command line ends on err: its exit status (ExitOf),
// err printed first on stderr as "name: err", unless it is an ExitError,
// whose reason the command printed already.
func Report(stderr io.Writer, name string, err error) Exit {
	if err != nil && !errors.As(err, new(ExitError)) {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
	}
	return ExitOf(err)
}
