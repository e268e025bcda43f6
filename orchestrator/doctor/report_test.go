package doctor

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/verdict"
)

// Each problem is printed with its fix and counted; info lines are not
// problems.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []Check{{Name: "qemu", Status: Fail, Detail: "missing", Fix: "apt install qemu"}, {Name: "cache", Status: Info, Detail: "1 GiB"},
		{Name: "kvm", Status: Warn, Detail: "no /dev/kvm"}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"FAIL  qemu", "fix: apt install qemu", "INFO  cache", "\n1 problem(s): a run would fail, and 1 warning(s); see each fix above\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := Write(&b, []Check{{Name: "qemu", Status: OK}}); err != nil || !strings.HasSuffix(b.String(), "\nno problems found\n") {
		t.Errorf("no problems: %v\n%s", err, b.String())
	}
}

// Report prints the checks, as text or JSON, and exits 1 on a failure,
// on a warning too under Strict.
func TestCheckupReport(t *testing.T) {
	low := healthy()
	low.Free = 10 << 30 // a warning
	for _, c := range []struct {
		name   string
		up     Checkup
		exit   verdict.Exit
		prints string
	}{
		{"healthy", Checkup{Env: healthy(), Settings: settings}, verdict.ExitOK, "no problems found"},
		{"a warning", Checkup{Env: low, Settings: settings}, verdict.ExitOK, "no problems found; 1 warning(s): kregress runs, less well"},
		{"a warning, strict", Checkup{Env: low, Settings: settings, Strict: true}, verdict.ExitFailure, "no problems found; 1 warning(s)"},
		{"disk full", Checkup{Env: Fake{Paths: healthy().Paths, Free: 1 << 30, StoreOK: true}, Settings: settings}, verdict.ExitFailure, "FAIL  disk"},
	} {
		var b bytes.Buffer
		if got := verdict.ExitOf(c.up.Report(&b)); got != c.exit || !strings.Contains(b.String(), c.prints) {
			t.Errorf("%s: exit %d, want %d printing %q:\n%s", c.name, got, c.exit, c.prints, b.String())
		}
	}
	var b bytes.Buffer
	var checks []Check
	err := Checkup{Env: healthy(), Settings: settings, JSON: true}.Report(&b)
	if jerr := json.Unmarshal(b.Bytes(), &checks); err != nil || jerr != nil || len(checks) != len(Run(healthy(), settings)) {
		t.Errorf("JSON: %v %v\n%s", err, jerr, b.String())
	}
}

// A warning alone is not called a problem: the summary says no problems
// and counts the warning apart, and the exit is 0.
func TestWarningsApartFromProblems(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []Check{{Name: "kvm", Status: Warn, Detail: "no /dev/kvm"}, {Name: "qemu", Status: OK}}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "problem(s)") || !strings.Contains(out, "no problems found; 1 warning(s)") {
		t.Fatalf("a warning only:\n%s", out)
	}
}

// Each check's line is printed as the check ends: the first is on the
// writer before the package query (the slowest check) starts.
func TestReportPrintsAsChecksEnd(t *testing.T) {
	var b bytes.Buffer
	env := healthy()
	seen := ""
	env.BeforeMissing = func() { seen = b.String() }
	if err := (Checkup{Env: env, Settings: settings}).Report(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(seen, "OK    qemu") || strings.Contains(seen, "packages") {
		t.Fatalf("printed before the package query: %q; want the qemu line and no more", seen)
	}
}
