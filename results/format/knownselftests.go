package format

import (
	"fmt"
	"io"
)

// WriteKnownSelftest is one row of kregress selftests known: a selftest
// known to fail on the built-in guest, and the diagnosed reason.
func WriteKnownSelftest(w io.Writer, test, reason string, flaky bool) {
	note := ""
	if flaky {
		note = " (flaky: fails some of the time)"
	}
	fmt.Fprintf(w, "%s%s\n    %s\n", test, note, reason)
}
