package progress

import (
	"bytes"
	"strings"
	"testing"
)

// quiet really quiets the progress lines; without it they appear.
func TestQuietDropsProgress(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var loud, hushed bytes.Buffer
		To(&loud, terminal, false)("building %s", "stock")
		To(&hushed, terminal, true)("building %s", "stock")
		if !strings.Contains(loud.String(), "building stock") || hushed.Len() != 0 {
			t.Errorf("terminal %v: loud %q, quiet %q", terminal, loud.String(), hushed.String())
		}
	}
	// A warning changes what the verdict is about: quiet does not hide
	// it (hostile audit: the fallback primary metric was a progress line).
	for _, terminal := range []bool{true, false} {
		var hushed bytes.Buffer
		To(&hushed, terminal, true)("%s", Warning("primary metric: b instead of a"))
		if !strings.Contains(hushed.String(), "warning: primary metric: b instead of a") {
			t.Errorf("terminal %v: quiet dropped the warning: %q", terminal, hushed.String())
		}
	}
	var logged bytes.Buffer
	To(&logged, false, false)("%s", Warning("w"))
	if !strings.Contains(logged.String(), "level=WARN") {
		t.Errorf("a warning in a CI log is not logged at WARN: %q", logged.String())
	}
	var buf bytes.Buffer
	For(&buf, false, "auto")("x %d", 1) // not a terminal: slog
	if !strings.Contains(buf.String(), `msg="x 1"`) {
		t.Errorf("For(a buffer): %q", buf.String())
	}
}
