package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// logAfter logs a command's output when the test ends, after any failure
// message. A failing test's log is printed in order and CI shows only its
// head and tail: a long output logged first pushed the failure's reason
// into the cut. (Several calls in one test are logged last first.)
func logAfter(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	t.Cleanup(func() { t.Log(msg) })
}

// tail is out's last n lines: a command's report, after its progress log,
// for a failure message that shows what the command concluded.
func tail(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"[…]"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
