package runlist

import (
	"testing"

	"github.com/kregress/kregress/internal/usage"
)

func TestParseID(t *testing.T) {
	if id, err := ParseID("12"); err != nil || id != 12 {
		t.Errorf("ParseID(12) = %d, %v", id, err)
	}
	for _, bad := range []string{"0", "-3", "latest", "1.5", ""} {
		if _, err := ParseID(bad); !usage.Is(err) {
			t.Errorf("ParseID(%q): %v, want a usage error", bad, err)
		}
	}
}
