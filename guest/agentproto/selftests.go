package agentproto

import (
	"fmt"
)

// SelftestSchema versions the document `kagent selftests` prints.
const SelftestSchema = "kregress.selftests/v1"

// Selftest outcomes. Pass, fail, skip, xfail and xpass come from the TAP
// lines of a kselftest binary; error and timeout are about the binary
// itself (it died, exited non-zero with no failing test, or overran).
// Flaky: the test failed (or its binary errored), and passed when its
// binary ran once more in the same boot.
const (
	SelftestPass    = "pass"
	SelftestFail    = "fail"
	SelftestSkip    = "skip"
	SelftestXFail   = "xfail"
	SelftestXPass   = "xpass"
	SelftestError   = "error"
	SelftestTimeout = "timeout"
	SelftestFlaky   = "flaky"
)

// BinaryEntry is the Name of the entry that carries a binary's own
// outcome (error, timeout) rather than one test's.
const BinaryEntry = "(binary)"

// SelftestResult is one test's outcome.
type SelftestResult struct {
	Binary  string `json:"binary"`
	Name    string `json:"name"`
	Outcome string `json:"outcome"`
	// Detail: the SKIP/XFAIL reason, or why a binary errored.
	Detail string `json:"detail,omitempty"`
}

// Key identifies a test across runs.
func (r SelftestResult) Key() string { return r.Binary + "/" + r.Name }

// SelftestBinary is how one binary ran.
type SelftestBinary struct {
	Name        string  `json:"name"`
	ExitCode    int     `json:"exit_code"`
	DurationSec float64 `json:"duration_sec"`
	// Output is the binary's output, its tail if long.
	Output string `json:"output" safetext:"text"`
	// Rerun: this is the second run of the binary in this boot, made
	// because a test failed in the first (its outcomes are merged into
	// the first run's: a failure that passed here is SelftestFlaky).
	Rerun bool `json:"rerun,omitempty"`
}

// SelftestDocument is what `kagent selftests` prints on stdout.
type SelftestDocument struct {
	Schema       string `json:"schema"`
	AgentVersion string `json:"agent_version"`
	// Setup says what the guest was given for the tests (swap, the
	// working directory's filesystem, ...) and what it could not be.
	Setup    []string         `json:"setup,omitempty"`
	Binaries []SelftestBinary `json:"binaries"`
	Results  []SelftestResult `json:"results"`
}

// DecodeSelftests parses exactly one selftests document, strictly.
func DecodeSelftests(data []byte) (*SelftestDocument, error) {
	d, err := decodeStrict(data, "selftests document", SelftestSchema, func(d *SelftestDocument) string { return d.Schema })
	if err != nil {
		return nil, err
	}
	if len(d.Binaries) == 0 {
		return nil, fmt.Errorf("selftests document: no binary ran")
	}
	for _, r := range d.Results {
		switch r.Outcome {
		case SelftestPass, SelftestFail, SelftestSkip, SelftestXFail, SelftestXPass, SelftestError, SelftestTimeout, SelftestFlaky:
		default:
			return nil, fmt.Errorf("selftests document: %s has unknown outcome %q", r.Key(), r.Outcome)
		}
	}
	return d, nil
}
