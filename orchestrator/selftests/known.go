package selftests

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"gopkg.in/yaml.v3"
)

// knownYAML lists the cgroup selftests that fail on the built-in guest
// (tinyconfig + guest.config, initramfs root, 2 vCPUs) for a diagnosed
// reason. See known.yaml.
//
//go:embed known.yaml
var knownYAML []byte

// Known is one expected failure and why. Flaky: it fails only some of
// the time, on every kernel. Its JSON is a row of kregress selftests
// known --json.
type Known struct {
	Test   string `yaml:"test" json:"test"` // binary/test
	Reason string `yaml:"reason" json:"reason"`
	Flaky  bool   `yaml:"flaky,omitempty" json:"flaky"`
	// Kernels are the kernel versions ("6.12", "6.1") the failure was
	// diagnosed on: a test failing on another kernel is unexplained
	// until someone diagnoses it there, because the test, the kernel
	// and so the reason differ between versions. Required.
	Kernels []string `yaml:"kernels" json:"-"`
	// Clock: "icount" or "host" for a failure diagnosed as depending on
	// the guest clock (compare.ClockKind); empty: every clock.
	Clock string `yaml:"clock,omitempty" json:"clock,omitempty"`
}

// KnownFailures returns the diagnosed failures, by test (binary/test).
func KnownFailures() map[string]compare.KnownFailure {
	ks, err := parseKnown(knownYAML)
	if err != nil {
		panic(err) // the embedded file is checked by the tests
	}
	m := map[string]compare.KnownFailure{}
	for _, k := range ks {
		m[k.Test] = compare.KnownFailure{Reason: k.Reason, Flaky: k.Flaky, Kernels: k.Kernels, Clock: k.Clock}
	}
	return m
}

// KnownList is KnownFailures in file order.
func KnownList() []Known {
	ks, _ := parseKnown(knownYAML)
	return ks
}

// WriteKnown writes KnownList as `kregress selftests known` prints it, a
// test and its reason per entry (format.WriteKnownSelftest); its JSON
// twin is KnownList itself.
func WriteKnown(w io.Writer) error {
	for _, k := range KnownList() {
		format.WriteKnownSelftest(w, k.Test, k.Reason, k.Flaky)
	}
	return nil
}

func parseKnown(data []byte) ([]Known, error) {
	var doc struct {
		Known []Known `yaml:"known"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("selftests: known.yaml: %w", err)
	}
	seen := map[string]bool{}
	for _, k := range doc.Known {
		if k.Test == "" || k.Reason == "" {
			return nil, fmt.Errorf("selftests: known.yaml: an entry without test or reason: %+v", k)
		}
		if len(k.Kernels) == 0 {
			return nil, fmt.Errorf("selftests: known.yaml: %s names no kernels (the versions it was diagnosed on, e.g. [\"6.12\"])", k.Test)
		}
		for _, v := range k.Kernels {
			if !compare.ValidKernelSeries(v) {
				return nil, fmt.Errorf("selftests: known.yaml: %s: kernel %q is not a MAJOR.MINOR series such as 6.12", k.Test, v)
			}
		}
		if k.Clock != "" && k.Clock != "icount" && k.Clock != "host" {
			return nil, fmt.Errorf("selftests: known.yaml: %s: clock %q: want icount, host or none", k.Test, k.Clock)
		}
		if seen[k.Test] {
			return nil, fmt.Errorf("selftests: known.yaml: %s twice", k.Test)
		}
		seen[k.Test] = true
	}
	return doc.Known, nil
}

// Command is the guest command that runs binaries from GuestDir (a
// kselftest target's test, collection:program, from TargetsGuestDir), each
// bounded by timeout. With rerun, a binary with an unexplained failing
// test runs once more in the same boot (a failure that does not repeat is
// reported flaky). The tests known.yaml lists earn no rerun: the
// non-flaky ones fail on every boot, and a flaky one's change is shown
// and never flagged already, so a rerun would only cost time (a slow
// binary whose known flakes would rerun it every boot; docs/design-notes.md, "Figures behind choices in the code").
func Command(binaries []string, timeout time.Duration, rerun bool) string {
	args := []string{"/bin/kagent", "selftests", "-dir", GuestDir, "-timeout", timeout.String()}
	if slices.ContainsFunc(binaries, func(b string) bool { return strings.Contains(b, ":") }) {
		args = append(args, "-targets-dir", TargetsGuestDir)
	}
	if rerun {
		args = append(args, "-rerun-failures")
		var expected []string
		for _, k := range KnownList() {
			if slices.ContainsFunc(binaries, func(b string) bool { return strings.HasPrefix(k.Test, b+"/") }) {
				expected = append(expected, k.Test)
			}
		}
		if len(expected) > 0 {
			args = append(args, "-expected", strings.Join(expected, ","))
		}
	}
	return strings.Join(append(args, binaries...), " ")
}
