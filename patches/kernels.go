package patches

import (
	"fmt"
	"strconv"
	"strings"
)

// KernelRange is the kernel series a family's patches and metrics fit,
// "6.12-6.15" (both ends included), "6.15-" (from 6.15 on) or "6.1" (that
// series only), as written in the manifest's kernels: key.
type KernelRange string

// Series is a kernel MAJOR.MINOR.
type Series struct{ Major, Minor int }

func (s Series) String() string { return fmt.Sprintf("%d.%d", s.Major, s.Minor) }

func (s Series) less(o Series) bool {
	return s.Major < o.Major || (s.Major == o.Major && s.Minor < o.Minor)
}

func parseSeries(s string) (Series, error) {
	major, minor, ok := strings.Cut(strings.TrimSpace(s), ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if !ok || err1 != nil || err2 != nil || a < 0 || b < 0 || a > 1000 || b > 1000 {
		return Series{}, fmt.Errorf("%q is not a kernel series such as 6.12", s)
	}
	return Series{a, b}, nil
}

// bounds parses the range; to is nil when it is open.
func (r KernelRange) bounds() (from Series, to *Series, err error) {
	lo, hi, isRange := strings.Cut(string(r), "-")
	if from, err = parseSeries(lo); err != nil {
		return from, nil, fmt.Errorf("kernels %q: %w", string(r), err)
	}
	if !isRange {
		return from, &from, nil
	}
	if strings.TrimSpace(hi) == "" {
		return from, nil, nil
	}
	t, err := parseSeries(hi)
	if err != nil {
		return from, nil, fmt.Errorf("kernels %q: %w", string(r), err)
	}
	if t.less(from) {
		return from, nil, fmt.Errorf("kernels %q: ends before it starts", string(r))
	}
	return from, &t, nil
}

// Check reports a malformed range.
func (r KernelRange) Check() error {
	_, _, err := r.bounds()
	return err
}

// Fits reports whether a kernel of series s is in the range; an empty
// range (a user's family that declares none) fits every kernel.
func (r KernelRange) Fits(s Series) bool {
	if r == "" {
		return true
	}
	from, to, err := r.bounds()
	if err != nil {
		return false
	}
	return !s.less(from) && (to == nil || !to.less(s))
}

// Fitting lists the families of m whose range fits s and that are
// measured with workload ("": any), sorted.
func (m *Manifest) Fitting(s Series, workload string) []string {
	var out []string
	for _, name := range m.FamilyNames() {
		f := m.Families[name]
		if f.Kernels != "" && f.Kernels.Fits(s) && (workload == "" || f.Workload == workload) {
			out = append(out, name)
		}
	}
	return out
}
