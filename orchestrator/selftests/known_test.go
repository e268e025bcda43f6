package selftests

import (
	"strings"
	"testing"
)

func TestKnownFailuresParse(t *testing.T) {
	known := KnownFailures()
	for _, k := range KnownList() {
		bin, _, ok := strings.Cut(k.Test, "/")
		if !ok {
			t.Errorf("%q is not binary/test", k.Test)
		}
		found := false
		for _, b := range DefaultBinaries {
			found = found || b == bin
		}
		if !found {
			t.Errorf("%s: binary %s is not among the default selftests", k.Test, bin)
		}
		if known[k.Test].Reason != k.Reason || len(k.Reason) < 20 {
			t.Errorf("%s: reason %q", k.Test, k.Reason)
		}
	}
	if _, err := parseKnown([]byte("known:\n- {test: a/b, reason: x}\n- {test: a/b, reason: y}\n")); err == nil {
		t.Error("a test listed twice accepted")
	}
	if _, err := parseKnown([]byte("known:\n- {test: a/b}\n")); err == nil {
		t.Error("an entry without a reason accepted")
	}
}
