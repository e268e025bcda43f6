package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// toyKernel is what makes a tree pass for a kernel before anything is
// built (kernel.CheckTree): a versioned Makefile and a trace header
// defining the events the rstat workload's primary metric needs.
var toyKernel = map[string]string{
	"Makefile":                      "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nbzImage:\n",
	"include/trace/events/cgroup.h": "DEFINE_EVENT(cgroup_rstat, cgroup_rstat_locked,\n);\nDEFINE_EVENT(cgroup_rstat, cgroup_rstat_unlock,\n);\n",
}

// userTree is a tiny git "kernel" with two commits (v1, then main) and a
// git format-patch file of a third change made on a branch.
func userTree(t *testing.T) (tree, patch string) {
	tree = t.TempDir()
	gitc := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=jane@example.org", "-c", "user.name=Jane Dev"}, args...)...)
		cmd.Dir = tree
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitc("init", "-q", "-b", "main")
	for name, data := range toyKernel {
		os.MkdirAll(filepath.Join(tree, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(tree, name), []byte(data), 0o644)
	}
	os.WriteFile(filepath.Join(tree, "rstat.c"), []byte("one\ntwo\nthree\n"), 0o644)
	gitc("add", "-A")
	gitc("commit", "-q", "-m", "v1")
	gitc("tag", "v1")
	os.WriteFile(filepath.Join(tree, "rstat.c"), []byte("one\nTWO\nthree\n"), 0o644)
	gitc("commit", "-q", "-am", "rstat: shout")
	gitc("checkout", "-q", "-b", "topic")
	os.WriteFile(filepath.Join(tree, "rstat.c"), []byte("one\nTWO\nthree!\n"), 0o644)
	gitc("commit", "-q", "-am", "rstat: exclaim\n\nBecause.")
	out := gitc("format-patch", "-1", "-o", t.TempDir(), "--add-header=Message-Id: <exclaim.1@example.org>")
	gitc("checkout", "-q", "main")
	return tree, out
}

// notKernelTree is a git repository of another project (hostile audit:
// the dry run took it for a kernel).
func notKernelTree(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n\tcc -o hello hello.c\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "hello.c"), []byte("int main(void) { return 0; }\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "-m", "hello"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func gitExperiment(t *testing.T, tree, body string) string {
	path := filepath.Join(t.TempDir(), "exp.yaml")
	os.WriteFile(path, []byte("experiment: mine\nkernel:\n  source: git\n  git_tree: "+tree+"\n"+body), 0o644)
	return path
}

func TestQuickModeDryRun(t *testing.T) {
	tree, patch := userTree(t)
	store := filepath.Join(t.TempDir(), "kregress.db")
	exp := gitExperiment(t, tree, "")
	out := mustRun(t, store, "run", "-c", exp, "--patch", patch, "--dry-run", "--cache-dir", t.TempDir())
	for _, want := range []string{"family quick", "base (baseline): the configured base", "patched (candidate): the configured base + 1 patch(es)",
		`"rstat: exclaim" by Jane Dev <jane@example.org> <exclaim.1@example.org>`, "files: rstat.c", "git tree " + tree + " at", "to build"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(store); err == nil {
		t.Errorf("a dry run created the store")
	}
	// `config` shows the same resolved variants.
	out = mustRun(t, store, "config", "-c", exp, "--patch", patch)
	if !strings.Contains(out, "# patched (candidate)") || !strings.Contains(out, "rstat: exclaim") {
		t.Errorf("config does not show the resolved variants:\n%s", out)
	}
}

func TestExperimentFamiliesFromGitRefs(t *testing.T) {
	tree, patch := userTree(t)
	store := filepath.Join(t.TempDir(), "kregress.db")
	os.MkdirAll(filepath.Join(filepath.Dir(patch), "x"), 0o755)
	exp := gitExperiment(t, tree, `family: shouting
families:
  shouting:
    workload: rstat
    baseline: quiet
    variants:
      quiet: {ref: v1}
      loud: {ref: main}
      louder: {ref: main, patches: [`+filepath.Base(patch)+`], cmdline: "loud=1"}
`)
	// patch paths are relative to the experiment file
	os.Rename(patch, filepath.Join(filepath.Dir(exp), filepath.Base(patch)))
	out := mustRun(t, store, "run", "-c", exp, "--dry-run", "--cache-dir", t.TempDir())
	for _, want := range []string{"quiet (baseline): ref v1 of " + tree, "loud (candidate): ref main", "louder (candidate): ref main of " + tree + " + 1 patch(es), cmdline \"loud=1\"", "rstat: exclaim"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "to build") != 3 || !strings.Contains(out, "no debug pass (lockdep kernels)") || strings.Contains(out, "debug pass (debug.pass") {
		t.Errorf("want three kernels to build and no debug pass, said (the family does not change locking):\n%s", out)
	}
	// Asked for, the debug pass builds every variant again, with its own
	// kernel keys.
	out = mustRun(t, store, "run", "-c", exp, "--dry-run", "--cache-dir", t.TempDir(), "--debug.pass", "on")
	_, debug, found := strings.Cut(out, "debug pass (debug.pass on): every variant again with lockdep.config")
	if !found || strings.Count(debug, "to build") != 3 || !strings.Contains(debug, "louder: kernel ") {
		t.Errorf("dry run with the debug pass:\n%s", out)
	}
}

func TestUserChangeBadInput(t *testing.T) {
	tree, patch := userTree(t)
	store := filepath.Join(t.TempDir(), "kregress.db")
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	exp := gitExperiment(t, tree, "")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing patch file", []string{"--patch", filepath.Join(dir, "nope.patch")}, "nope.patch: no such file"},
		{"mbox without a patch", []string{"--patch", write("talk.mbox", "From git@z Thu Jan  1 00:00:00 1970\nFrom: a@b\nSubject: hi\n\nno diff here\n")}, "holds 1 message and no patch"},
		{"path outside the tree", []string{"--patch", write("out.patch", "--- a/../outside\n+++ b/../outside\n@@ -1 +1 @@\n-a\n+b\n")}, `refusing path "../outside"`},
		{"unknown git ref", []string{"-c", gitExperiment(t, tree, "  git_ref: no-such-branch\n")}, `has no commit "no-such-branch"`},
		{"git_tree not a repository", []string{"-c", gitExperiment(t, t.TempDir(), "")}, "is not a git repository"},
		{"two variants with one name", []string{"-c", gitExperiment(t, tree, "family: f\nfamilies:\n  f:\n    workload: rstat\n    baseline: a\n    variants:\n      a: {}\n      a: {ref: v1}\n")}, `mapping key "a" already defined`},
		{"ref with a Debian source", []string{"-c", write("deb.yaml", "family: f\nfamilies:\n  f:\n    workload: rstat\n    baseline: a\n    variants:\n      a: {}\n      b: {ref: v1}\n")}, "kernel.source is debian"},
		{"unknown family", []string{"-c", write("nofam.yaml", "family: nosuch\n")}, `unknown family "nosuch"`},
		{"fuzz out of range", []string{"-c", exp, "--patch", patch, "--fuzz", "7"}, "kernel.fuzz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "--dry-run", "--cache-dir", t.TempDir()}, c.args...)
			if c.args[0] != "-c" {
				args = append(args, "-c", exp)
			}
			out, err := kregress(t, store, args...)
			if err == nil || !strings.Contains(out, c.want) {
				t.Fatalf("want an error containing %q, got %v:\n%s", c.want, err, out)
			}
		})
	}
	// A dirty tree is refused at HEAD, and accepted with --allow-dirty.
	os.WriteFile(filepath.Join(tree, "rstat.c"), []byte("edited\n"), 0o644)
	if out, err := kregress(t, store, "run", "--dry-run", "-c", exp, "--cache-dir", t.TempDir()); err == nil || !strings.Contains(out, "uncommitted changes (rstat.c)") {
		t.Fatalf("dirty tree: %v\n%s", err, out)
	}
	// (Quick mode with a patch that applies to the toy tree: the dry run
	// now applies every variant's patches, and the built-in families'
	// kernel patches do not apply to it.)
	mk := write("mk.patch", "--- a/Makefile\n+++ b/Makefile\n@@ -4 +4 @@\n-bzImage:\n+bzImage: # patched\n")
	mustRun(t, store, "run", "--dry-run", "-c", exp, "--allow-dirty", "--cache-dir", t.TempDir(), "--patch", mk)
}

func TestResultsShowReproduces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	patchFile := filepath.Join(t.TempDir(), "0001-x.patch")
	os.WriteFile(patchFile, []byte("changed since"), 0o644)
	r := &results.Run{Experiment: "quick-rstat", Family: "quick", Baseline: "base", Variants: []string{"base", "patched"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "experiment: quick-rstat\nkernel:\n  git_ref: 0123abcd\n"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"base", "patched"} {
		p := results.Provenance{SourceID: "git:0123abcd", GitCommit: "0123abcd", GitDescribe: "v6.12-3-g0123abcd", KernelKey: "k" + v}
		if v == "patched" {
			p.PatchDetails = []results.PatchInfo{{Name: patchFile, SHA256: strings.Repeat("ab", 32), Subject: "rstat: exclaim", Author: "Jane Dev <jane@example.org>", MessageID: "exclaim.1@example.org"}}
		}
		if err := s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: v, Repetition: 1, Seq: i + 1, Status: results.StatusOK, Provenance: p}); err != nil {
			t.Fatal(err)
		}
	}
	s.FinishRun(ctx, r.ID, results.RunComplete, "")
	s.Close()
	out := mustRun(t, path, "results", "show", "1")
	for _, want := range []string{"commit:   0123abcd (v6.12-3-g0123abcd)", `"rstat: exclaim" by Jane Dev <jane@example.org> <exclaim.1@example.org>`,
		"kregress results show 1 --config > run-1.yaml", "kregress run -c run-1.yaml", "missing or changed since the run: " + patchFile} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if out := mustRun(t, path, "results", "show", "1", "--config"); !strings.Contains(out, "git_ref: 0123abcd") {
		t.Errorf("--config: %s", out)
	}
}

// failingStore has one run whose candidate crashed in 3 of 5 cells, and
// one whose baseline never came up.
func failingStore(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	add := func(baseStatus, candStatus func(i int) results.Status) {
		r := &results.Run{Experiment: "e", Family: "f", Baseline: "base", Variants: []string{"base", "cand"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			for j, v := range []string{"base", "cand"} {
				st := baseStatus(i)
				if j == 1 {
					st = candStatus(i)
				}
				res := &results.Result{RunID: r.ID, Variant: v, Repetition: i + 1, Seq: 2*i + j + 1, Status: st, Provenance: results.Provenance{Accel: "tcg", VCPUs: 2}}
				if st == results.StatusOK {
					res.Metrics = []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 100 + float64(i)}}
				} else {
					res.Error = "guest kernel panicked\n--- console tail ---\nKernel panic - not syncing: test"
					// What the cell's console search stores for that panic.
					res.Findings = []results.Finding{{Kind: results.FindingPanic, Title: "kernel panic: test", Count: 1}}
				}
				if err := s.AddResult(ctx, res); err != nil {
					t.Fatal(err)
				}
			}
		}
		s.FinishRun(ctx, r.ID, results.RunComplete, "")
	}
	ok := func(int) results.Status { return results.StatusOK }
	add(ok, func(i int) results.Status {
		if i < 3 {
			return results.StatusCrashed
		}
		return results.StatusOK
	})
	add(func(int) results.Status { return results.StatusBootFailed }, ok)
	return path
}

func TestExitCodes(t *testing.T) {
	store := failingStore(t)
	code := func(args ...string) (int, string) {
		out, err := kregress(t, store, args...)
		if err == nil {
			return 0, out
		}
		if exitCodeOf(err) < 0 {
			t.Fatalf("%v: %v", args, err)
		}
		return exitCodeOf(err), out
	}
	if c, out := code("diff", "1"); c != 0 || !strings.Contains(out, "REGRESSION: 3/5 failed (baseline 0/5)") || !strings.Contains(out, "cand: fails in 3 of 5 cells where the baseline never failed") {
		t.Errorf("diff 1 without the flag: exit %d\n%s", c, out)
	}
	if c, out := code("diff", "1", "--fail-on-regression"); c != 3 {
		t.Errorf("a candidate crashing in 3 of 5 cells: exit %d, want 3\n%s", c, out)
	}
	if c, out := code("diff", "2"); c != 4 || !strings.Contains(out, "the baseline base could not be measured") {
		t.Errorf("a baseline that never booted: exit %d, want 4\n%s", c, out)
	}
	for _, args := range [][]string{{"diff", "1", "--alpha", "1.5"}, {"diff", "--no-such-flag"}, {"diff", "1", "2", "3"}, {"run", "-c", "/nonexistent.yaml"}} {
		if c, out := code(args...); c != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", args, c, out)
		}
	}
	if c, out := code("diff", "99"); c != 2 {
		t.Errorf("a run that does not exist: exit %d, want 2 (usage)\n%s", c, out)
	}
}

// --dry-run runs every check run would make that needs
// no build, and what the user must fix exits 2 naming the thing: a patch
// that does not apply, a symlink-making patch, a workload parameter
// kagent would refuse or does not know.
func TestDryRunRefusesWhatRunRefuses(t *testing.T) {
	tree, _ := userTree(t)
	store := filepath.Join(t.TempDir(), "kregress.db")
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.patch")
	os.WriteFile(stale, []byte("--- a/rstat.c\n+++ b/rstat.c\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"), 0o644)
	link := filepath.Join(dir, "link.patch")
	os.WriteFile(link, []byte("diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+/etc\n\\ No newline at end of file\n"), 0o644)
	good := filepath.Join(dir, "good.patch")
	os.WriteFile(good, []byte("--- a/rstat.c\n+++ b/rstat.c\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n"), 0o644)
	exp := gitExperiment(t, tree, "")
	cache := t.TempDir()
	notKernel := notKernelTree(t)
	for _, c := range []struct {
		name string
		exp  string
		args []string
		want []string
	}{
		{"does not apply", exp, []string{"--patch", stale}, []string{"stale.patch does not apply", "rstat.c", "hunk #1", "your patches do not fit", "rebase them onto this tree"}},
		{"symlink", exp, []string{"--patch", link}, []string{"link.patch makes symlinks", "evil", "allow_symlinks"}},
		{"negative param", gitExperiment(t, tree, "workload:\n  name: rstat\n  params:\n    readers: \"-4\"\n"), []string{"--patch", good}, []string{"readers"}},
		{"unknown param", gitExperiment(t, tree, "workload:\n  name: rstat\n  params:\n    reeders: \"4\"\n"), []string{"--patch", good}, []string{`unknown parameter "reeders"`}},
		{"not a kernel tree", gitExperiment(t, notKernel, ""), nil, []string{"git tree " + notKernel, "is not a Linux kernel source tree", "VERSION and PATCHLEVEL", "include/trace/events"}},
	} {
		args := append([]string{"run", "-c", c.exp, "--dry-run", "--cache-dir", cache}, c.args...)
		out, err := kregress(t, store, args...)
		if code := exitCodeOf(err); code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", c.name, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, out)
			}
		}
		if strings.Contains(out, "to build") {
			t.Errorf("%s: the dry run still lists kernels to build:\n%s", c.name, out)
		}
	}
	// A patch that applies passes, and the user's tree is untouched.
	out := mustRun(t, store, "run", "-c", exp, "--dry-run", "--cache-dir", cache, "--patch", good)
	if !strings.Contains(out, "to build") {
		t.Errorf("good patch: %s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(tree, "rstat.c")); string(data) != "one\nTWO\nthree\n" {
		t.Errorf("user's tree modified: %q", data)
	}
	if _, err := os.Stat(store); err == nil {
		t.Errorf("a dry run created the store")
	}
}
