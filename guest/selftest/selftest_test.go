package selftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
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
	want := []agentproto.SelftestResult{
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
	pass := []agentproto.SelftestResult{{Outcome: "pass"}}
	fail := []agentproto.SelftestResult{{Outcome: "fail"}}
	for _, c := range []struct {
		name      string
		tests     []agentproto.SelftestResult
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

// outcomes lists doc's results as "binary/test=outcome", in order.
func outcomes(doc *agentproto.SelftestDocument) []string {
	var got []string
	for _, r := range doc.Results {
		got = append(got, r.Key()+"="+r.Outcome)
	}
	return got
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "test_ok", `echo "ok 1 a"; echo "ok 2 b"; exit 0`)
	script(t, dir, "test_bad", `echo "ok 1 a"; echo "not ok 2 b"; exit 1`)
	script(t, dir, "test_dies", `echo "ok 1 a"; kill -SEGV $$`)
	script(t, dir, "test_hangs", `echo "ok 1 a"; sleep 30 & wait`)
	doc, err := Run(context.Background(), dir, "", []string{"test_ok", "test_bad", "test_dies", "test_hangs"}, Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got := outcomes(doc)
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
	_, err := Run(context.Background(), dir, "", []string{"test_ok", "test_nope"}, Options{Timeout: time.Second})
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "test_nope") {
		t.Fatalf("err = %v, want ErrMissing naming test_nope", err)
	}
}

// A kselftest target's test (collection:program) runs from its
// collection's directory under TargetsDir, where its data files are, and
// is named as kselftest-list.txt names it; plain names still run from dir
// in the scratch directory.
func TestRunTargets(t *testing.T) {
	dir, targets := t.TempDir(), t.TempDir()
	script(t, dir, "test_plain", `test -e data && exit 9; echo "ok 1 plain"`)
	coll := filepath.Join(targets, "sched")
	if err := os.MkdirAll(filepath.Join(targets, "filesystems", "epoll"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(coll, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(coll, "data"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	script(t, coll, "cs_test", `test -e data || exit 9; echo "ok 1 a"; echo "not ok 2 b"; exit 1`)
	script(t, coll, "run.sh", `test -e data || exit 9; echo "no TAP here"; exit 0`)
	script(t, filepath.Join(targets, "filesystems", "epoll"), "epoll_wakeup_test", `echo "ok 1 w"`)
	doc, err := Run(context.Background(), dir, "", []string{"test_plain", "sched:cs_test", "sched:run.sh", "filesystems/epoll:epoll_wakeup_test"},
		Options{Timeout: 5 * time.Second, TargetsDir: targets})
	if err != nil {
		t.Fatal(err)
	}
	got := outcomes(doc)
	want := []string{"test_plain/plain=pass", "sched:cs_test/a=pass", "sched:cs_test/b=fail", "sched:run.sh/run=pass", "filesystems/epoll:epoll_wakeup_test/w=pass"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("results:\n got %v\nwant %v", got, want)
	}
	_, err = Run(context.Background(), dir, "", []string{"sched:nope"}, Options{Timeout: time.Second, TargetsDir: targets})
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "sched:nope") || !strings.Contains(err.Error(), targets) {
		t.Fatalf("err = %v, want ErrMissing naming sched:nope in %s", err, targets)
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
	doc, err := Run(context.Background(), dir, "", []string{"test_pass.sh", "test_fail.sh", "test_skip.sh", "test_tap.sh"}, Options{Timeout: 5 * time.Second})
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

// With Rerun, a binary whose test failed runs once more in the same boot:
// a failure that does not repeat is flaky, one that does stays a failure;
// an expected failure and a timeout earn no rerun.
func TestRunRerunsFailures(t *testing.T) {
	dir := t.TempDir()
	// The working directory is shared by both runs: "seen" marks the first.
	script(t, dir, "test_flaky", `if [ -e seen ]; then echo "ok 1 a"; echo "ok 2 b"; exit 0; fi; touch seen; echo "ok 1 a"; echo "not ok 2 b"; exit 1`)
	script(t, dir, "test_broken", `echo "ok 1 a"; echo "not ok 2 b"; exit 1`)
	script(t, dir, "test_known", `echo "not ok 1 a"; exit 1`)
	script(t, dir, "test_crashy", `if [ -e crashed ]; then echo "ok 1 a"; exit 0; fi; touch crashed; echo "ok 1 a"; kill -SEGV $$`)
	script(t, dir, "test_hangs", `echo "not ok 1 a"; sleep 30 & wait`)
	opts := Options{Timeout: 2 * time.Second, Rerun: true, Expected: map[string]bool{"test_known/a": true}}
	doc, err := Run(context.Background(), dir, "", []string{"test_flaky", "test_broken", "test_known", "test_crashy", "test_hangs"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := outcomes(doc)
	want := []string{"test_flaky/a=pass", "test_flaky/b=flaky", "test_broken/a=pass", "test_broken/b=fail",
		"test_known/a=fail", "test_crashy/a=pass", "test_crashy/(binary)=flaky", "test_hangs/a=fail", "test_hangs/(binary)=timeout"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("results:\n got %v\nwant %v", got, want)
	}
	var runs []string
	for _, b := range doc.Binaries {
		runs = append(runs, fmt.Sprintf("%s rerun=%v", b.Name, b.Rerun))
	}
	wantRuns := []string{"test_flaky rerun=false", "test_flaky rerun=true", "test_broken rerun=false", "test_broken rerun=true",
		"test_known rerun=false", "test_crashy rerun=false", "test_crashy rerun=true", "test_hangs rerun=false"}
	if !reflect.DeepEqual(runs, wantRuns) {
		t.Fatalf("runs:\n got %v\nwant %v", runs, wantRuns)
	}
	for _, r := range doc.Results {
		if r.Key() == "test_broken/b" && !strings.Contains(r.Detail, "rerun in this boot: fail") {
			t.Errorf("a repeated failure does not say so: %q", r.Detail)
		}
		if r.Key() == "test_flaky/b" && !strings.Contains(r.Detail, "passed when the binary ran again") {
			t.Errorf("a flaky test does not say why: %q", r.Detail)
		}
	}
}

// A program that exists but cannot be started (a script whose
// interpreter the guest lacks, as kselftest's Python tests in the
// built-in image) is that test's error, and the other tests still run:
// the agent does not fail the cell for it.
func TestRunProgramThatCannotStart(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "test_py"), []byte("#!/nonexistent/python3\nprint('ok 1 a')\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script(t, dir, "test_ok", `echo "ok 1 a"`)
	doc, err := Run(context.Background(), dir, "", []string{"test_py", "test_ok"}, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("a program that cannot start failed the whole run: %v", err)
	}
	got := outcomes(doc)
	want := []string{"test_py/(binary)=error", "test_ok/a=pass"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("results:\n got %v\nwant %v", got, want)
	}
	if d := doc.Results[0].Detail; !strings.Contains(d, "could not start") || !strings.Contains(d, "no such file") {
		t.Fatalf("detail %q does not say why it could not start", d)
	}
}

// A kselftest target's program that prints no TAP (proc's, kcmp's) is
// judged by its exit code as kselftest's runner judges it: 0 passes, 4
// skips, anything else fails. A plain cgroup selftest binary that prints
// no TAP stays an error.
func TestRunTargetProgramsWithoutTAP(t *testing.T) {
	dir, targets := t.TempDir(), t.TempDir()
	coll := filepath.Join(targets, "proc")
	if err := os.MkdirAll(coll, 0o755); err != nil {
		t.Fatal(err)
	}
	script(t, coll, "fd-001-lookup", `exit 0`)
	script(t, coll, "proc-loadavg-001", `echo "loadavg wrong"; exit 1`)
	script(t, coll, "proc-empty-vm", `exit 4`)
	script(t, dir, "test_plain", `exit 0`)
	doc, err := Run(context.Background(), dir, "", []string{"proc:fd-001-lookup", "proc:proc-loadavg-001", "proc:proc-empty-vm", "test_plain"},
		Options{Timeout: 5 * time.Second, TargetsDir: targets})
	if err != nil {
		t.Fatal(err)
	}
	got := outcomes(doc)
	want := []string{"proc:fd-001-lookup/fd-001-lookup=pass", "proc:proc-loadavg-001/proc-loadavg-001=fail",
		"proc:proc-empty-vm/proc-empty-vm=skip", "test_plain/(binary)=error"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("results:\n got %v\nwant %v", got, want)
	}
}
