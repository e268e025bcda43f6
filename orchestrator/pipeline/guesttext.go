package pipeline

import (
	"fmt"

	"github.com/kregress/kregress/internal/safetext"
)

// maxErrorText bounds a cell's stored error: the cause, a 40-line console
// tail and kagent's stderr fit many times over; a guest that prints one
// endless console line does not fill the store.
const maxErrorText = 32 << 10

// maxLogRead bounds how much of a console log or dmesg is searched for
// kernel reports. Reports come at a boot's start (a WARNING during init)
// or its end (a panic), so the head and the tail of a flooded log are
// read and the middle skipped.
const maxLogRead = 32 << 20

// errorText escapes guest text in an error message (keeping its lines)
// and keeps its head and tail when it is too long.
func errorText(s string) string {
	return safetext.Text(headTail(s, maxErrorText))
}

// headTail keeps the first and last max/2 bytes of s and says what it
// cut.
func headTail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	half := max / 2
	return s[:half] + fmt.Sprintf("\n[... %d bytes cut ...]\n", len(s)-2*half) + s[len(s)-half:]
}
