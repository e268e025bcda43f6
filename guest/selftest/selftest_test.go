package selftest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/report"
)

// Output shaped like test_core's on a kernel where one test fails and one
// skips (kselftest.h formats), with earlier lines printed again by a forked
// child flushing the inherited stdout buffer.
const coreTAP = `TAP version 13
1..4
ok 1 test_cgcore_internal_process_constraint
not ok 2 test_cgcore_populated
ok 3 # SKIP test_cgcore_proc_migration
# memory controller isn't available
ok 4 test_cgcore_lesser_euid_open # XFAIL known on 6.12
ok 1 test_cgcore_internal_process_constraint
not ok 2 test_cgcore_populated
    ok 9 nested lines are not this binary's
# Totals: pass:1 fail:1 xfail:1 xpass:0 skip:1 error:0
`

func TestParseTAP(t *testing.T) {
	got := ParseTAP("test_core", []byte(coreTAP))
	want := []report.SelftestResult{
		{Binary: "test_core", Name: "test_cgcore_internal_process_constraint", Outcome: "pass"},
		{Binary: "test_core", Name: "test_cgcore_populated", Outcome: "fail"},
		{Binary: "test_core", Name: "test_cgcore_proc_migration", Outcome: "skip"},
		{Binary: "test_core", Name: "test_cgcore_lesser_euid_open", Outcome: "xfail", Detail: "known on 6.12"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseTAP:\n got %+v\nwant %+v", got, want)
	}
}

func TestBinaryOutcome(t *testing.T) {
	pass := []report.SelftestResult{{Outcome: "pass"}}
	fail := []report.SelftestResult{{Outcome: "fail"}}
	for _, c := range []struct {
		name      string
		tests     []report.SelftestResult
		code      int
		sig, tout bool
		want      string
	}{
		{"all passed", pass, 0, false, false, ""},
		{"a test failed, exit 1", fail, 1, false, false, ""},
		{"exit 1 without a failing test", pass, 1, false, false, "error"},
		{"killed by a signal", pass, -1, true, false, "error"},
		{"timeout", pass, -1, true, true, "timeout"},
		{"no TAP, exit 4", nil, 4, false, false, "skip"},
		{"no TAP, exit 0", nil, 0, false, false, "error"},
		{"odd exit code", pass, 7, false, false, "error"},
	} {
		if got, _ := binaryOutcome(c.tests, c.code, c.sig, c.tout); got != c.want {
			t.Errorf("%s: outcome %q, want %q", c.name, got, c.want)
		}
	}
}

func script(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "test_ok", `echo "ok 1 a"; echo "ok 2 b"; exit 0`)
	script(t, dir, "test_bad", `echo "ok 1 a"; echo "not ok 2 b"; exit 1`)
	script(t, dir, "test_dies", `echo "ok 1 a"; kill -SEGV $$`)
	script(t, dir, "test_hangs", `echo "ok 1 a"; sleep 30 & wait`)
	doc, err := Run(context.Background(), dir, "", []string{"test_ok", "test_bad", "test_dies", "test_hangs"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range doc.Results {
		got = append(got, r.Key()+"="+r.Outcome)
	}
	want := []string{"test_ok/a=pass", "test_ok/b=pass", "test_bad/a=pass", "test_bad/b=fail",
		"test_dies/a=pass", "test_dies/(binary)=error", "test_hangs/a=pass", "test_hangs/(binary)=timeout"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("results:\n got %v\nwant %v", got, want)
	}
	if len(doc.Binaries) != 4 || doc.Binaries[1].ExitCode != 1 {
		t.Fatalf("binaries: %+v", doc.Binaries)
	}
	if doc.Binaries[3].DurationSec > 20 {
		t.Fatalf("the hanging binary was not killed with its process group: ran %.0fs", doc.Binaries[3].DurationSec)
	}
}

func TestRunMissingBinary(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "test_ok", `echo "ok 1 a"`)
	_, err := Run(context.Background(), dir, "", []string{"test_ok", "test_nope"}, time.Second)
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "test_nope") {
		t.Fatalf("err = %v, want ErrMissing naming test_nope", err)
	}
}

// A shell selftest without TAP is judged by its exit code, as one result
// named after the script; a failing one names the matrix entry it stopped
// at. A .sh that does print TAP is parsed like any binary.
func TestRunScripts(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "test_pass.sh", `echo "Running state transition test ..."; echo "All tests PASSED."; exit 0`)
	script(t, dir, "test_fail.sh", `echo "Running state transition test ..."; echo "Test TEST_MATRIX[24] failed result check!"; echo "C2-3:P1:S+ C3:P1 . . O3=0"; echo; echo "A1/cpuset.cpus: 2-3"; exit 1`)
	script(t, dir, "test_skip.sh", `echo "Test needs at least 8 cpus available!"; echo "Test SKIPPED"; exit 4`)
	script(t, dir, "test_tap.sh", `echo "ok 1 a"; echo "not ok 2 b"; exit 1`)
	doc, err := Run(context.Background(), dir, "", []string{"test_pass.sh", "test_fail.sh", "test_skip.sh", "test_tap.sh"}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range doc.Results {
		got = append(got, r.Key()+"="+r.Outcome+" "+r.Detail)
	}
	want := []string{
		"test_pass.sh/test_pass=pass ",
		"test_fail.sh/test_fail=fail exit 1: Test TEST_MATRIX[24] failed result check!",
		"test_skip.sh/test_skip=skip Test SKIPPED",
		"test_tap.sh/a=pass ",
		"test_tap.sh/b=fail ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("results:\n got %q\nwant %q", got, want)
	}
}
