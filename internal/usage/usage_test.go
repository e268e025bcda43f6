package usage

import (
	"errors"
	"fmt"
	"testing"
)

func TestIs(t *testing.T) {
	base := errors.New("--alpha 2: want (0, 1)")
	err := fmt.Errorf("run: %w", Wrap(base))
	if !Is(err) || !errors.Is(err, base) || err.Error() != "run: --alpha 2: want (0, 1)" {
		t.Fatalf("%v: Is %v, wraps base %v", err, Is(err), errors.Is(err, base))
	}
	if Is(base) || Wrap(nil) != nil {
		t.Fatal("a plain error is not a usage error, and Wrap(nil) is nil")
	}
	if !Is(Errorf("bad %s", "flag")) {
		t.Fatal("Errorf's error is a usage error")
	}
}

// A stored id is a positive number: 0, negatives and what is not a
// number are usage errors naming the argument; 41abc is not 41.
func TestPositiveID(t *testing.T) {
	if id, err := PositiveID("41", "run id"); err != nil || id != 41 {
		t.Fatalf("41: %d, %v", id, err)
	}
	for _, arg := range []string{"0", "-3", "41abc", ""} {
		_, err := PositiveID(arg, "run id")
		if !Is(err) || err.Error() != fmt.Sprintf("%q is not a run id", arg) {
			t.Errorf("%q: %v", arg, err)
		}
	}
}
