package vm

import (
	"testing"
	"time"
)

func TestOvercommit(t *testing.T) {
	for _, c := range []struct {
		o      Overcommit
		factor int
	}{
		{Overcommit{VCPUs: 2, HostCores: 2}, 1},
		{Overcommit{VCPUs: 1, HostCores: 8}, 1},
		{Overcommit{VCPUs: 8, HostCores: 2}, 4},
		{Overcommit{VCPUs: 5, HostCores: 2}, 3}, // rounded up: the last core runs three
		{Overcommit{VCPUs: 8, HostCores: 0}, 1}, // unknown host: nominal
	} {
		if got := c.o.Factor(); got != c.factor {
			t.Errorf("%+v: factor %d, want %d", c.o, got, c.factor)
		}
		if got, want := c.o.Stretch(time.Minute), time.Duration(c.factor)*time.Minute; got != want {
			t.Errorf("%+v: stretch %s, want %s", c.o, got, want)
		}
	}
	if got, want := (Overcommit{VCPUs: 8, HostCores: 2}).Explain(2*time.Minute), "2m0s times 4: 8 vCPUs on 2 host cores"; got != want {
		t.Errorf("explain %q, want %q", got, want)
	}
	if got := (Overcommit{VCPUs: 2, HostCores: 2}).Explain(time.Minute); got != "" {
		t.Errorf("explain without overcommit %q, want empty", got)
	}
}
