// Package usage marks an error as the user's mistake in a command line,
// an argument or an experiment (kregress exits 2), wherever it is found:
// the packages below the CLI that check what the user gave (the session's
// preflight, diff-set resolution) return one, and the CLI maps it to its
// exit code in one place.
package usage

import (
	"errors"
	"fmt"
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
