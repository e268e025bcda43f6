// Package selftest runs kselftest binaries inside the guest and turns their
// TAP output into per-test outcomes. A kselftest binary prints
//
//	ok 1 test_name
//	not ok 2 test_name
//	ok 3 # SKIP test_name        (ksft_test_result_skip puts the name after SKIP)
//
// and exits 0 (pass), 1 (fail) or 4 (skip). Anything else — a signal, a
// non-zero exit with no failing test, no TAP at all, a timeout — is an
// outcome of the binary itself, recorded under agentproto.BinaryEntry.
package selftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/lines"
)

// kselftest exit codes (tools/testing/selftests/kselftest.h).
const (
	ksftPass = 0
	ksftFail = 1
	ksftSkip = 4
)

// Compiled on first use: kagent's initialisation is on every boot's path.
var tapLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(not )?ok ([0-9]+)(.*)$`) })

// ParseTAP returns the outcomes of binary's TAP output, in order. A test
// number seen before is skipped: the cgroup selftests fork helpers while
// their stdout (a pipe, so fully buffered) still holds earlier result
// lines, and every child's exit() prints those lines again.
func ParseTAP(binary string, out []byte) []agentproto.SelftestResult {
	var res []agentproto.SelftestResult
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		m := tapLine().FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		if seen[m[2]] {
			continue
		}
		seen[m[2]] = true
		r := agentproto.SelftestResult{Binary: binary, Outcome: agentproto.SelftestPass}
		if m[1] != "" {
			r.Outcome = agentproto.SelftestFail
		}
		name, directive, _ := strings.Cut(" "+m[3], " # ")
		r.Name = strings.TrimSpace(name)
		if d := strings.TrimSpace(directive); d != "" {
			word, reason, _ := strings.Cut(d, " ")
			switch strings.ToUpper(word) {
			case "SKIP":
				r.Outcome = agentproto.SelftestSkip
			case "XFAIL":
				r.Outcome = agentproto.SelftestXFail
			case "XPASS":
				r.Outcome = agentproto.SelftestXPass
			default:
				reason = d
			}
			reason = strings.TrimSpace(reason)
			if r.Name == "" {
				// "ok 3 # SKIP test_name": the name is the reason's text.
				r.Name = reason
			} else {
				r.Detail = reason
			}
		}
		if r.Name == "" {
			r.Name = fmt.Sprintf("#%d", len(res)+1)
		}
		res = append(res, r)
	}
	return res
}

// exitCodeResult judges a shell selftest or a kselftest target's program
// that printed no TAP (tests is what ParseTAP found; the cpuset partition
// script prints prose and stops at its first failure) by its exit code
// alone, as kselftest's runner does: one result named after the program,
// whose detail on failure is the matrix entry it stopped at, else its
// last line.
func exitCodeResult(binary string, tests []agentproto.SelftestResult, out []byte, exitCode int, signaled, timedOut bool) (agentproto.SelftestResult, bool) {
	_, prog, ok := strings.Cut(binary, ":") // a target's test: collection:program
	// A script, or any program of a kselftest target (many, like proc's,
	// print no TAP), is judged by its exit code, as kselftest's own
	// runner judges it; a cgroup selftest binary must print TAP.
	if (!strings.HasSuffix(binary, ".sh") && !ok) || len(tests) > 0 {
		return agentproto.SelftestResult{}, false
	}
	if !ok {
		prog = filepath.Base(binary)
	}
	r := agentproto.SelftestResult{Binary: binary, Name: strings.TrimSuffix(prog, ".sh")}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	switch {
	case timedOut || signaled:
		r.Outcome, r.Detail = binaryOutcome(nil, exitCode, signaled, timedOut)
	case exitCode == ksftPass:
		r.Outcome = agentproto.SelftestPass
	case exitCode == ksftSkip:
		r.Outcome, r.Detail = agentproto.SelftestSkip, last
	default:
		r.Outcome, r.Detail = agentproto.SelftestFail, fmt.Sprintf("exit %d: %s", exitCode, last)
		for _, l := range lines {
			if strings.Contains(l, " failed ") && strings.HasPrefix(strings.TrimSpace(l), "Test ") {
				r.Detail = fmt.Sprintf("exit %d: %s", exitCode, strings.TrimSpace(l))
				break
			}
		}
	}
	return r, true
}

// binaryOutcome judges the binary itself from how it ended and what its
// tests said; "" means its tests' outcomes tell the whole story.
func binaryOutcome(tests []agentproto.SelftestResult, exitCode int, signaled, timedOut bool) (outcome, detail string) {
	failed := false
	for _, t := range tests {
		if t.Outcome == agentproto.SelftestFail {
			failed = true
		}
	}
	switch {
	case timedOut:
		return agentproto.SelftestTimeout, "killed after the per-binary timeout"
	case signaled:
		return agentproto.SelftestError, fmt.Sprintf("killed by a signal (exit %d)", exitCode)
	case len(tests) == 0 && exitCode == ksftSkip:
		return agentproto.SelftestSkip, "the whole binary skipped"
	case len(tests) == 0:
		return agentproto.SelftestError, fmt.Sprintf("exit %d with no TAP result line", exitCode)
	case exitCode != ksftPass && exitCode != ksftFail && exitCode != ksftSkip:
		return agentproto.SelftestError, fmt.Sprintf("unexpected exit %d", exitCode)
	case exitCode == ksftFail && !failed:
		return agentproto.SelftestError, "exit 1 (fail) but no test reported failure"
	}
	return "", ""
}

// outputLimit bounds how much of a binary's output the document keeps.
const outputLimit = 16 << 10

// ErrMissing is returned when a binary the run asked for is not there.
var ErrMissing = errors.New("selftest binary missing from the image")

// Options says how Run runs the binaries.
type Options struct {
	// Timeout bounds each run of a binary.
	Timeout time.Duration
	// Rerun: when a binary's test fails (or the binary errors), run the
	// binary once more in the same boot and keep both answers: a test that
	// passes the second time is SelftestFlaky, one that fails again stays
	// failed. A timeout is not rerun (it would cost the timeout again).
	// Why: the gate runs on loaded CI hosts under TCG, where the memcg
	// tests' reclaim figures (upstream widened test_memcg_min/low's 10%
	// bounds for failing 17-22 runs in 100) and the cpu.max tests'
	// throttling miss their bounds now and then on every kernel; a
	// failure that does not repeat is not a finding about the kernel.
	Rerun bool
	// Expected lists tests (binary/test) that fail on this guest whatever
	// the kernel: their failure alone does not earn a rerun.
	Expected map[string]bool
	// TargetsDir holds installed kselftest targets: a name
	// "collection:program" is TargetsDir/collection/program, run from
	// its collection's directory as kselftest's runner runs it (its data
	// files are found beside it).
	TargetsDir string
}

// locate is where binary n is and the directory it runs in: a target's
// test (collection:program) from its collection's directory under
// targets, any other from dir in work.
func locate(dir, targets, work, n string) (path, cwd string) {
	if coll, prog, ok := strings.Cut(n, ":"); ok {
		d := filepath.Join(targets, filepath.FromSlash(coll))
		return filepath.Join(d, prog), d
	}
	return filepath.Join(dir, n), work
}

// Run runs each named binary from dir in turn, in a scratch working
// directory under workRoot ("" for the system's temporary directory):
// some tests create files in their cwd, and the memcg tests read them back
// as page cache.
func Run(ctx context.Context, dir, workRoot string, names []string, opts Options) (*agentproto.SelftestDocument, error) {
	for _, n := range names {
		if path, _ := locate(dir, opts.TargetsDir, "", n); !isFile(path) {
			where := dir
			if strings.Contains(n, ":") {
				where = opts.TargetsDir
			}
			return nil, fmt.Errorf("%w: %s (looked in %s)", ErrMissing, n, where)
		}
	}
	work, err := os.MkdirTemp(workRoot, "kselftest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	doc := &agentproto.SelftestDocument{Schema: agentproto.SelftestSchema}
	for _, n := range names {
		path, cwd := locate(dir, opts.TargetsDir, work, n)
		bin, tests, err := runBinary(ctx, path, cwd, n, opts.Timeout)
		if err != nil {
			return nil, err
		}
		doc.Binaries = append(doc.Binaries, bin)
		if opts.Rerun && needsRerun(tests, opts.Expected) {
			again, retests, err := runBinary(ctx, path, cwd, n, opts.Timeout)
			if err != nil {
				return nil, err
			}
			again.Rerun = true
			doc.Binaries = append(doc.Binaries, again)
			tests = mergeRerun(tests, retests, opts.Expected)
		}
		doc.Results = append(doc.Results, tests...)
	}
	return doc, nil
}

// rerunnable: a failure that a second run can tell apart from a flake.
func rerunnable(r agentproto.SelftestResult, expected map[string]bool) bool {
	return (r.Outcome == agentproto.SelftestFail || r.Outcome == agentproto.SelftestError) && !expected[r.Key()]
}

// needsRerun: a test failed that is worth a rerun, and the binary did not
// time out (a second run would likely cost the whole timeout again).
func needsRerun(tests []agentproto.SelftestResult, expected map[string]bool) bool {
	worth := false
	for _, t := range tests {
		if t.Outcome == agentproto.SelftestTimeout {
			return false
		}
		worth = worth || rerunnable(t, expected)
	}
	return worth
}

// mergeRerun folds a binary's second run into its first: each failure
// worth a rerun is flaky when the second run passed it (for the binary's
// own entry: when the second run had none), else it keeps its outcome
// and says what the rerun did. Every other result is the first run's.
func mergeRerun(first, again []agentproto.SelftestResult, expected map[string]bool) []agentproto.SelftestResult {
	second := map[string]agentproto.SelftestResult{}
	for _, r := range again {
		second[r.Key()] = r
	}
	out := make([]agentproto.SelftestResult, len(first))
	for i, r := range first {
		out[i] = r
		if !rerunnable(r, expected) {
			continue
		}
		r2, ran := second[r.Key()]
		passed := ran && r2.Outcome == agentproto.SelftestPass
		if r.Name == agentproto.BinaryEntry {
			passed = !ran
		}
		switch {
		case passed:
			out[i].Outcome = agentproto.SelftestFlaky
			out[i].Detail = join("failed, then passed when the binary ran again in this boot", r.Detail)
		case ran:
			out[i].Detail = join(r.Detail, "the rerun in this boot: "+join(r2.Outcome, r2.Detail))
		default:
			out[i].Detail = join(r.Detail, "the rerun in this boot did not reach it")
		}
	}
	return out
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// runBinary runs binary n (at path) in work, bounded by timeout, and
// judges its outcomes. An error means it could not be run at all.
func runBinary(ctx context.Context, path, work, n string, timeout time.Duration) (agentproto.SelftestBinary, []agentproto.SelftestResult, error) {
	bctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(bctx, path)
	cmd.Dir = work
	// Kill the whole process group: the tests fork helpers.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	elapsed := time.Since(t0)
	timedOut := bctx.Err() == context.DeadlineExceeded
	if ctx.Err() != nil {
		return agentproto.SelftestBinary{}, nil, ctx.Err()
	}
	code, signaled := 0, false
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			signaled = true
		}
	case err != nil && !timedOut:
		// The program exists (Run checked) but cannot be started: a
		// script whose interpreter the guest lacks (a Python test), a
		// binary for another machine. That is this test's outcome, an
		// error the gate compares like any other, not the agent's.
		detail := lines.First("could not start: " + err.Error())
		return agentproto.SelftestBinary{Name: n, ExitCode: -1, DurationSec: elapsed.Seconds(), Output: detail},
			[]agentproto.SelftestResult{{Binary: n, Name: agentproto.BinaryEntry, Outcome: agentproto.SelftestError, Detail: detail}}, nil
	}
	tests := ParseTAP(n, out.Bytes())
	if r, ok := exitCodeResult(n, tests, out.Bytes(), code, signaled, timedOut); ok {
		tests = []agentproto.SelftestResult{r}
	} else if o, d := binaryOutcome(tests, code, signaled, timedOut); o != "" {
		tests = append(tests, agentproto.SelftestResult{Binary: n, Name: agentproto.BinaryEntry, Outcome: o, Detail: d})
	}
	text := out.String()
	if len(text) > outputLimit {
		text = "[...]\n" + text[len(text)-outputLimit:]
	}
	return agentproto.SelftestBinary{Name: n, ExitCode: code, DurationSec: elapsed.Seconds(), Output: text}, tests, nil
}
