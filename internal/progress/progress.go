// Package progress is the one type through which long steps (a kernel or
// selftest build, a cell, an experiment, a night, a bisect) tell the user
// what they are doing. It sits in internal, the lowest layer, so that
// every layer can report through it.
package progress

// Reporter receives human progress lines, printf-style, one line per
// call (no trailing newline). A nil Reporter discards them: call it
// through Printf when it may be nil.
type Reporter func(format string, args ...any)

// Printf reports a line through r, or discards it when r is nil.
func (r Reporter) Printf(format string, args ...any) {
	if r != nil {
		r(format, args...)
	}
}

// Discard is a Reporter that says nothing (tests, quiet callers).
func Discard(string, ...any) {}
