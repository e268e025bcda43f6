// Package names is the one definition of what kregress accepts as the
// name of a variant, a family, a metric or an experiment, checked where
// each enters (an experiment file, a patch set's manifest, a guest's
// document, an imported export). Names become directories, table cells,
// CSV fields, command-line arguments and comma-joined store columns: one
// character set that none of them has to quote keeps a name the same
// thing everywhere (a comma in a variant split it in two after a store
// round trip).
package names

import (
	"fmt"
	"regexp"
)

// Kind is what a name names, for messages.
type Kind string

const (
	Variant    Kind = "variant"
	Family     Kind = "family"
	Metric     Kind = "metric"
	Experiment Kind = "experiment"
)

// MaxLen bounds a name: the longest built-in one is under 40 characters.
const MaxLen = 128

// Allowed says in words what Check accepts.
const Allowed = "letters, digits and . _ + - only, starting with a letter or digit"

var re = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// Error is a name outside the character set.
type Error struct {
	Kind Kind
	Name string
}

func (e *Error) Error() string {
	if len(e.Name) > MaxLen {
		return fmt.Sprintf("%s name %.40q...: longer than %d characters", e.Kind, e.Name, MaxLen)
	}
	return fmt.Sprintf("%s name %q: use %s", e.Kind, e.Name, Allowed)
}

// Valid reports whether s is a name.
func Valid(s string) bool { return len(s) <= MaxLen && re.MatchString(s) }

// Check returns an *Error when s is not a name of kind k.
func Check(k Kind, s string) error {
	if Valid(s) {
		return nil
	}
	return &Error{Kind: k, Name: s}
}
