package progress

import (
	"fmt"
	"testing"
)

func TestPrintf(t *testing.T) {
	var got []string
	r := Reporter(func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) })
	r.Printf("kernel: building %s (%d%%)", "stock", 50)
	if len(got) != 1 || got[0] != "kernel: building stock (50%)" {
		t.Errorf("got %q", got)
	}
	var none Reporter
	none.Printf("nobody listens: %d", 1) // must not panic
	Reporter(Discard).Printf("nor here")
}
