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
