// Package lines holds the one helper that cuts a text to its first line,
// for the one-sentence errors and table cells that quote a longer text
// (a build's output, a cell's error, a QEMU's stderr).
package lines

import "strings"

// First is s up to its first newline, all of s when it has none.
func First(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
