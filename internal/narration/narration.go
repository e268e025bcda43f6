// Package narration says which comments narrate rather than define: a
// comment that carries a calendar date, or a figure with its unit
// reported as measured, taken or seen (or as seen on a named machine).
// Figures belong in docs/, the history in commit messages; a comment says
// what the code does and why. The package's test holds the module's
// non-test Go files to Budget such comments.
package narration

import (
	"go/ast"
	"regexp"
	"strings"
)

// Budget is how many non-test comments of the module may narrate.
const Budget = 5

var (
	// date is a calendar date, YYYY-MM-DD.
	date = regexp.MustCompile(`\b(19|20)\d\d-[01]\d-[0-3]\d\b`)
	// measured is a figure with a unit reported as seen: after a verb
	// that reports it (measured, took, saw, observed, timed, ran in), or
	// before the machine it was seen on. "Seen" is left out: "the change
	// seen with 80% power" defines.
	measured = regexp.MustCompile(`(?i)\b(measured|took|saw|observed|timed|ran in)\b[^.;,()]{0,30}?\d+(\.\d+)?\s?(%|(s|ms|us|µs|min|minutes|seconds|hours|x|times)\b)` +
		`|\b\d+(\.\d+)?\s?(s|ms|min|minutes|seconds|hours)\b[^.;]*\b(wall|on this host|on this machine|on the development machine|idle host|busy host)\b`)
)

// Narrates says whether text, a comment's text, carries a date or a
// measured figure.
func Narrates(text string) bool {
	return date.MatchString(text) || measured.MatchString(text)
}

// Comments are the comments of f that narrate, each as its text on one
// line.
func Comments(f *ast.File) []string {
	var out []string
	for _, g := range f.Comments {
		text := strings.Join(strings.Fields(g.Text()), " ")
		if Narrates(text) {
			out = append(out, text)
		}
	}
	return out
}
