// Package shellquote writes command lines a user can paste into a POSIX
// shell: the commands kregress prints for the user to run (a handed-off
// bisect, a report's reproduce line).
package shellquote

import "strings"

// Join quotes each argument that needs it and joins them with spaces.
func Join(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// Quote leaves a word of safe characters as is and single-quotes anything
// else (an empty string too), escaping single quotes.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
