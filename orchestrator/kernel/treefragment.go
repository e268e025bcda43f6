package kernel

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTreeFragment bounds a config fragment read from a kernel tree (a
// kselftest target's config). Real ones are a few KiB; the bound keeps a
// hostile tree from feeding megabytes into every build's .config.
const MaxTreeFragment = 64 << 10

// maxFragmentLine bounds one line: the .config reader (ParseConfig)
// reads lines of up to 64 KiB, and a longer one would hide every option
// after it from the check of what Kconfig kept.
const maxFragmentLine = 4 << 10

// assignment is a line Kconfig reads as one option: a name and a value
// that is a tristate, a number, a hex number or a quoted string.
var assignment = regexp.MustCompile(`^CONFIG_[A-Za-z0-9_]+=(y|m|n|-?[0-9]+|0[xX][0-9a-fA-F]+|"([^"\\]|\\.)*")$`)

// notSet is the one comment Kconfig reads as an assignment (=n). It
// reads any line whose third character starts "CONFIG_" as one
// ("#xCONFIG_SMP is not set" too), so such a comment must be exactly
// this form.
var notSet = regexp.MustCompile(`^# CONFIG_[A-Za-z0-9_]+ is not set$`)

// FragmentLineError is a line of a tree's config fragment that is neither
// a CONFIG_ assignment, a comment nor empty.
type FragmentLineError struct {
	File string
	Line int
	Text string
}

func (e *FragmentLineError) Error() string {
	text := e.Text
	if len(text) > 80 {
		text = text[:80] + "..."
	}
	return fmt.Sprintf("%s:%d: %q is not a Kconfig assignment (CONFIG_NAME=value), a comment or empty: refused", e.File, e.Line, text)
}

// CheckTreeFragment refuses a config fragment from a tree (file names it
// in the error) that is larger than MaxTreeFragment or has a line other
// than CONFIG_NAME=value, a "#" comment or an empty line: what the build
// appends to .config must be what the fragment claims to ask for, and
// nothing Kconfig would read as something else.
func CheckTreeFragment(file string, data []byte) error {
	if len(data) > MaxTreeFragment {
		return fmt.Errorf("%s: %d bytes, more than a config fragment may have (%d): refused", file, len(data), MaxTreeFragment)
	}
	for i, line := range strings.Split(string(data), "\n") {
		comment := strings.HasPrefix(line, "#")
		readAsOption := comment && len(line) >= 2 && strings.HasPrefix(line[2:], "CONFIG_")
		ok := line == "" || len(line) <= maxFragmentLine && printable(line) &&
			(assignment.MatchString(line) || comment && (!readAsOption || notSet.MatchString(line)))
		if !ok {
			return &FragmentLineError{File: file, Line: i + 1, Text: line}
		}
	}
	return nil
}

// printable: valid UTF-8 without control characters other than tab.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\t' && unicode.IsControl(r) {
			return false
		}
	}
	return true
}
