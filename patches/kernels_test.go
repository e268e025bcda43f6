package patches

import (
	"strings"
	"testing"
)

func TestKernelRange(t *testing.T) {
	s := func(a, b int) Series { return Series{a, b} }
	for _, tc := range []struct {
		r    KernelRange
		s    Series
		fits bool
	}{
		{"6.12-6.15", s(6, 12), true}, {"6.12-6.15", s(6, 15), true}, {"6.12-6.15", s(6, 16), false},
		{"6.12-6.15", s(6, 1), false}, {"6.15-", s(7, 0), true}, {"6.15-", s(6, 14), false},
		{"6.1", s(6, 1), true}, {"6.1", s(6, 10), false}, {"", s(5, 4), true},
	} {
		if got := tc.r.Fits(tc.s); got != tc.fits {
			t.Errorf("%q fits %s = %v, want %v", tc.r, tc.s, got, tc.fits)
		}
	}
	for _, bad := range []KernelRange{"6", "6.x", "6.15-6.12", "a-b"} {
		if bad.Check() == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Every built-in family says which kernels it fits, and on 6.1 only the
// 6.1 family fits; on 6.12 every other one does.
func TestBuiltinFamiliesDeclareKernels(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range m.Families {
		if f.Kernels == "" {
			t.Errorf("family %s declares no kernels", name)
		}
	}
	if got := strings.Join(m.Fitting(Series{6, 1}, ""), ","); got != "cpuset-6.1" {
		t.Errorf("families fitting 6.1: %s", got)
	}
	if got := strings.Join(m.Fitting(Series{6, 12}, ""), ","); got != "cpuset,lru,pcpu,rstat" {
		t.Errorf("families fitting 6.12: %s", got)
	}
	if got := strings.Join(m.Fitting(Series{6, 12}, "rstat"), ","); got != "rstat" {
		t.Errorf("rstat families fitting 6.12: %s", got)
	}
}
