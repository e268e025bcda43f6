package session

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
)

// What the user must fix is refused before any git command: a missing
// endpoint or metric, an unknown metric, no git tree.
func TestNewBisectSpecRefusals(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		req  BisectRequest
		want string
	}{
		{BisectRequest{Good: "a", Bad: "b"}, "give --metric (or --crash)"},
		{BisectRequest{Metric: "m", Good: "a"}, "give --metric (or --crash)"},
		{BisectRequest{Metric: "m", Series: "s"}, "give --metric (or --crash)"},
		{BisectRequest{Metric: "nope", Good: "a", Bad: "b"}, "reports no such metric"},
		{BisectRequest{Crash: true, Good: "a", Bad: "b"}, "needs a kernel git repository"},
	} {
		cfg := *cfg
		cfg.Kernel.GitTree = ""
		if _, err := NewBisectSpec(t.Context(), &cfg, c.req); !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error saying %q", c.req, err, c.want)
		}
	}
}
