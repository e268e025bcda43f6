package names

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{"stock", "per-cpu-relock", "rstat_lock_hold_p50_us", "v6.12", "a+b", "0", strings.Repeat("a", MaxLen)} {
		if err := Check(Variant, ok); err != nil {
			t.Errorf("Check(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "x,y", "a|b", "-x", ".x", "a b", "a/b", "<img>", "a\nb", "=1", "é", strings.Repeat("a", MaxLen+1)} {
		err := Check(Metric, bad)
		if err == nil || !strings.HasPrefix(err.Error(), "metric name") {
			t.Errorf("Check(%q) = %v, want an error naming the kind", bad, err)
		}
	}
}
