package main

// The docs test, run: every `kregress ...` command line of README.md and
// docs/commands.md is executed, in the order a reader meets it, against a
// fixture that makes its placeholders real (docsFixture): a git "kernel"
// at ~/linux with the refs the docs name, the patch files and experiment
// files they name, and a store holding the runs and the bisect they
// name. docs_test.go checks that a line parses; this checks that it works
// (a file name the docs never create, a flag a subcommand refuses at run
// time, a configuration that does not load, a run that is not there).
//
// Nothing is built or booted. How each command runs (docsRunMode):
//   - run without --dry-run gets --dry-run: the dry run makes every check
//     the run makes before its first build (the experiment resolved, every
//     patch applied to its real source, the primary metric's events in
//     the tree);
//   - nightly and bisect have no dry run: they run with firstBuild set,
//     through their whole set-up (configuration, the tree and its refs,
//     the lock, the store, their outputs), and stop where they would build
//     the first kernel;
//   - noise and seeds only boot (no set-up worth the name before their
//     first build, and no seam): their lines are parse-checked only;
//   - docMentions lists the spans that name a command in prose without
//     being a command line;
//   - everything else runs as written and must exit 0.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// docMentions are documented spans that name a command rather than give
// a command line to run, with why each is not run.
var docMentions = map[string]string{
	"bisect":      "docs/commands.md names the command in prose",
	"bisect step": "docs/commands.md names it in prose; it runs under git bisect run, which checks the tree out for it",
}

// parseOnly are the commands whose documented lines are parse-checked
// only, with why.
var parseOnly = map[string]string{
	"kregress noise": "it boots one kernel N times and has no dry run",
	"kregress seeds": "it runs the eight seed experiments and has no dry run",
}

// errStoppedAtBuild is firstBuild in the docs test.
var errStoppedAtBuild = errors.New("docs test: stopped where the first kernel would be built")

// docsFixture is the world the documented commands run in.
type docsFixture struct {
	home, work string
	env        []string
}

// newDocsFixture makes every placeholder of README.md and
// docs/commands.md real. The patches are docs/examples/udelay-rstat.patch
// (real: against Debian's linux-source-6.12, which the dry runs unpack into
// the shared cache); ~/linux carries that source's kernel/cgroup/rstat.c,
// so the same patches apply there too.
func newDocsFixture(t *testing.T) *docsFixture {
	t.Helper()
	dir := t.TempDir()
	fx := &docsFixture{home: filepath.Join(dir, "home"), work: filepath.Join(dir, "work")}
	for _, d := range []string{fx.home, fx.work, filepath.Join(fx.work, "outgoing"), filepath.Join(fx.work, "srv", "team")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	storePath := filepath.Join(dir, "kregress.db")
	fx.env = []string{"HOME=" + fx.home, "KREGRESS_STORE=" + storePath, "KREGRESS_RESULTS_DIR=" + dir, "KREGRESS_CACHE_DIR=" + sharedDryRunCache}

	// The Debian source, unpacked once for every dry run of the package.
	if out, err := inProcess(t, fx.env, "run", "--dry-run"); err != nil {
		t.Fatalf("unpacking the Debian source (kregress run --dry-run): %v\n%s", err, out)
	}
	// The cache holds the git trees' sources too: Debian's is the one
	// with a MAINTAINERS file.
	trees, err := filepath.Glob(filepath.Join(sharedDryRunCache, "src", "*", "MAINTAINERS"))
	if err != nil || len(trees) != 1 {
		t.Fatalf("the unpacked Debian source: %v %v", trees, err)
	}
	rstatC, err := os.ReadFile(filepath.Join(filepath.Dir(trees[0]), "kernel", "cgroup", "rstat.c"))
	if err != nil {
		t.Fatal(err)
	}
	patch, err := os.ReadFile(filepath.Join(repoRoot, "docs", "examples", "udelay-rstat.patch"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(path string, data []byte, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"0001-my-fix.patch", "udelay-rstat.patch", "outgoing/0001-my-fix.patch"} {
		write(filepath.Join(fx.work, name), patch, 0o644)
	}
	write(filepath.Join(fx.work, "v2.mbox"), append([]byte("From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"), patch...), 0o644)
	write(filepath.Join(fx.work, "my.yaml"), []byte("experiment: my\nrepetitions: 6\n"), 0o644)
	// The README's own benchmark experiment, and the program it names
	// (its host_dry_run: the dry run runs it on the host only with --benchmark-host-dry-run).
	mine := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(readDoc(t, "README.md"))
	if mine == nil {
		t.Fatal("README.md has no yaml block (the benchmark experiment, mine.yaml)")
	}
	write(filepath.Join(fx.work, "mine.yaml"), mine[1], 0o644)
	write(filepath.Join(fx.work, "forkbench"), []byte("#!/bin/sh\necho 'BenchmarkFork-2  200  24000000 ns/op'\n"), 0o755)

	// ~/linux: v6.12, then master one commit on, my-branch two.
	tree := filepath.Join(fx.home, "linux")
	for name, data := range toyKernel {
		write(filepath.Join(tree, name), []byte(data), 0o644)
	}
	write(filepath.Join(tree, "kernel", "cgroup", "rstat.c"), rstatC, 0o644)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=jane@example.org", "-c", "user.name=Jane Dev"}, args...)...)
		cmd.Dir = tree
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "master")
	git("add", "-A")
	git("commit", "-q", "-m", "Linux 6.12")
	git("tag", "v6.12")
	for _, c := range []struct{ branch, file string }{{"", "master.c"}, {"my-branch", "one.c"}, {"", "two.c"}} {
		if c.branch != "" {
			git("checkout", "-q", "-b", c.branch, "v6.12")
		}
		write(filepath.Join(tree, c.file), []byte(c.file+"\n"), 0o644)
		git("add", c.file)
		git("commit", "-q", "-m", "add "+c.file)
	}
	git("checkout", "-q", "master")

	docsStore(t, storePath)
	return fx
}

func readDoc(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// docsStore writes the runs the docs name (12, 13, 41: every run up to
// 41 is a complete run of the default experiment's two variants, 6 ok
// boots each) and bisects up to 3.
func docsStore(t *testing.T, path string) {
	t.Helper()
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for run := 1; run <= 41; run++ {
		r := &results.Run{Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "per-cpu-relock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 6; i++ {
			for j, v := range r.Variants {
				res := &results.Result{RunID: r.ID, Variant: v, Repetition: i + 1, Seq: 2*i + j + 1, Status: results.StatusOK,
					Provenance: results.Provenance{Accel: "tcg", VCPUs: 2},
					Metrics: []agentproto.Metric{
						{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 2400 + float64(i*7+run)},
						{Name: "rstat_lock_hold_p99_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 52 - 20*float64(j) + float64(i%3)},
					}}
				if err := s.AddResult(ctx, res); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
			t.Fatal(err)
		}
	}
	spec, _ := json.Marshal(&bisect.Spec{Experiment: "", GitTree: "/linux", Good: "v6.12", Bad: "my-branch", Names: []string{"v6.12", "m", "my-branch"}, Metric: "rstat_lock_hold_p50_us"})
	state, _ := json.Marshal(&bisect.Result{Culprit: "m", Reproduced: true})
	for i := 0; i < 3; i++ {
		b := &results.Bisect{Experiment: "rstat-relock", Status: results.RunComplete, Spec: string(spec), State: string(state)}
		if err := s.CreateBisect(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
}

// real makes a documented word's placeholder real: ~ is the fixture's
// home, DIR a directory, /srv/team/ the fixture's.
func (fx *docsFixture) real(word string) string {
	switch {
	case strings.HasPrefix(word, "~/"):
		return filepath.Join(fx.home, word[2:])
	case word == "DIR":
		return filepath.Join(fx.work, "man-dir")
	case strings.HasPrefix(word, "/srv/team/"):
		return filepath.Join(fx.work, word[1:])
	}
	return word
}

// How a documented command runs (see the file's comment).
type docsRunMode string

const (
	runAsWritten docsRunMode = "as written"
	runDry       docsRunMode = "with --dry-run"
	runToBuild   docsRunMode = "to its first build"
	parseCheck   docsRunMode = "parse-checked only"
	mention      docsRunMode = "a mention"
)

// modeOf is how d runs, and the arguments it runs with.
func (fx *docsFixture) modeOf(d docCommand) (docsRunMode, []string, error) {
	if _, ok := docMentions[strings.Join(d.args, " ")]; ok {
		return mention, nil, nil
	}
	c, err := checkCommand(d)
	if err != nil {
		return "", nil, err
	}
	var args []string
	for _, w := range d.args {
		args = append(args, fx.real(w))
	}
	path := c.CommandPath()
	switch {
	case parseOnly[path] != "":
		return parseCheck, nil, nil
	case path == "kregress run" && !c.Flags().Changed("dry-run"):
		return runDry, append(args, "--dry-run"), nil
	case path == "kregress nightly" || path == "kregress bisect":
		return runToBuild, args, nil
	}
	return runAsWritten, args, nil
}

// runDocCommands runs every command of a document (name, text) in
// order, in fx, and returns one message per command that did not work,
// and how many ran in each mode.
func (fx *docsFixture) runDocCommands(t *testing.T, name, text string) (problems []string, modes map[docsRunMode]int) {
	t.Helper()
	t.Chdir(fx.work)
	saved := firstBuild
	firstBuild = errStoppedAtBuild
	defer func() { firstBuild = saved }()
	savedDoctor := doctorEnv
	// doctor's verdict is the host's (QEMU, KVM, free disk): here, a
	// host that has everything, so that only the command line is tested.
	doctorEnv = fakeHost{free: 1 << 40}
	defer func() { doctorEnv = savedDoctor }()
	modes = map[docsRunMode]int{}
	for _, d := range extractCommands(name, text) {
		mode, args, err := fx.modeOf(d)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%v\n\tdoes not parse: %v", d, err))
			continue
		}
		modes[mode]++
		if mode == mention || mode == parseCheck {
			continue
		}
		out, err := inProcess(t, fx.env, args...)
		code := exitCodeOf(err)
		if testing.Verbose() {
			t.Logf("%v (%s): exit %d\n%s", d, mode, code, out)
		}
		switch {
		case mode == runToBuild && (code != 1 || !strings.Contains(out, errStoppedAtBuild.Error())):
			problems = append(problems, fmt.Sprintf("%v\n\t(run %s) exit %d, want it to reach its first build (exit 1 saying %q):\n%s", d, mode, code, errStoppedAtBuild, out))
		case mode != runToBuild && code != 0:
			problems = append(problems, fmt.Sprintf("%v\n\t(run %s) exit %d:\n%s", d, mode, code, out))
		}
	}
	return problems, modes
}

func TestDocumentedCommandsRun(t *testing.T) {
	fx := newDocsFixture(t)
	docs := map[string]string{}
	for _, name := range []string{"README.md", "docs/commands.md"} {
		docs[name] = string(readDoc(t, name))
	}
	for _, name := range []string{"README.md", "docs/commands.md"} {
		problems, modes := fx.runDocCommands(t, name, docs[name])
		for _, p := range problems {
			t.Errorf("%s: a documented command does not work: %s", name, p)
		}
		t.Logf("%s: %v", name, modes)
		if modes[runAsWritten] < 5 || modes[runDry] < 3 {
			t.Errorf("%s: too few commands ran (%v): the extractor or the modes are broken", name, modes)
		}
	}
	// What the docs say the commands write is there.
	for _, f := range []string{"my-branch.yaml", "nightly.xml", "report.html", "run12.txt", "run12.json", "srv/team/kregress.db", "man-dir/kregress.1"} {
		if _, err := os.Stat(filepath.Join(fx.work, f)); err != nil {
			t.Errorf("the documented commands did not write %s: %v", f, err)
		}
	}
}

// TestDocsRunCatchesBrokenCommands proves that the run can fail where the
// parse check cannot: a README whose experiment file is misnamed between
// init and run, and whose patch file is one nobody wrote, fails, naming
// each line; and a documented nightly or bisect that does not reach its
// build (an unknown ref) fails too.
func TestDocsRunCatchesBrokenCommands(t *testing.T) {
	fx := newDocsFixture(t)
	readme := string(readDoc(t, "README.md"))
	broken := strings.Replace(readme, "run -c my-branch.yaml --dry-run", "run -c my_branch.yaml --dry-run", 1)
	broken = strings.Replace(broken, "--patch outgoing/ --repetitions 8", "--patch outgoing.mbox --repetitions 8", 1)
	broken = strings.Replace(broken, "--good v6.12 --bad my-branch", "--good v6.12 --bad my-brnach", 1)
	if broken == readme || strings.Count(broken, "my_branch.yaml")+strings.Count(broken, "outgoing.mbox")+strings.Count(broken, "my-brnach") != 3 {
		t.Fatal("README.md no longer has the lines this test breaks")
	}
	if problems, _ := checkAll(extractCommands("README.md", broken)); len(problems) != 0 {
		t.Fatalf("the broken lines must parse (else docs_test.go already catches them): %v", problems)
	}
	problems, _ := fx.runDocCommands(t, "README.md", broken)
	if len(problems) != 3 {
		t.Fatalf("want 3 problems, got %d:\n%s", len(problems), strings.Join(problems, "\n"))
	}
	for i, want := range []string{"outgoing.mbox", "my_branch.yaml", "my-brnach"} {
		if !strings.Contains(problems[i], want) {
			t.Errorf("problem %d does not name %s:\n%s", i, want, problems[i])
		}
	}
}
