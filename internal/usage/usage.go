// Package usage marks an error as the user's mistake in a command line,
// an argument or an experiment (kregress exits 2), wherever it is found:
// the packages below the CLI that check what the user gave (the session's
// preflight, diff-set resolution) return one, and the CLI maps it to its
// exit code in one place.
package usage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Error is a mistake the user fixes in what they gave.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Wrap marks err as a usage error (nil stays nil).
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err}
}

// Errorf is fmt.Errorf marked as a usage error.
func Errorf(format string, args ...any) error { return &Error{Err: fmt.Errorf(format, args...)} }

// Is reports whether err is, or wraps, a usage error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// IsParser reports whether err is one of the command line parser's
// (cobra's) own argument and command errors, which carry no type: an
// unknown command or flag, a wrong number of arguments.
func IsParser(err error) bool {
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument", "if any flags in the group"} {
		if strings.HasPrefix(err.Error(), prefix) {
			return true
		}
	}
	return false
}

// PositiveID reads arg as a stored id, which is a positive number (no
// run or bisect has id 0); anything else is a usage error saying arg is
// not a what ("run id", "bisect id").
func PositiveID(arg, what string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return 0, Wrap(fmt.Errorf("%q is not a %s", arg, what))
	}
	return id, nil
}
