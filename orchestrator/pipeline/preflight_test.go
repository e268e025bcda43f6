package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
)

// rstat61 is a 6.1-like kernel/cgroup/rstat.c fragment: the loop a 6.12
// patch's context does not match.
const rstat61 = `static void cgroup_rstat_flush_locked(struct cgroup *cgrp)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		/* if @may_sleep, play nice and yield if necessary */
		if (may_sleep && (need_resched() ||
				  spin_needbreak(&cgroup_rstat_lock))) {
			spin_unlock_irq(&cgroup_rstat_lock);
		}
	}
}
`

// fakeKernelRepo is a git repository of a fake kernel tree: tag "v61"
// is a 6.1.192 whose trace headers lack the rstat lock events, tag
// "v612" a 6.12.118 that defines them. Nothing in it builds: a test
// that reaches a build fails with a *kernel.BuildError, so a refusal
// proves the check came first.
func fakeKernelRepo(t *testing.T) string {
	t.Helper()
	dir, git, write := gitRepo(t)
	write("Makefile", "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n")
	write("include/trace/events/cgroup.h", "DEFINE_EVENT(cgroup, cgroup_mkdir,\n);\n")
	write("kernel/cgroup/rstat.c", rstat61)
	git("add", "-A")
	git("commit", "-q", "-m", "6.1")
	git("tag", "v61")
	write("Makefile", "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\n")
	write("include/trace/events/cgroup.h", "DEFINE_EVENT(cgroup, cgroup_mkdir,\n);\nDEFINE_EVENT(cgroup_rstat, cgroup_rstat_locked,\n);\nDEFINE_EVENT(cgroup_rstat, cgroup_rstat_unlock,\n);\n")
	git("commit", "-q", "-am", "6.12")
	git("tag", "v612")
	return dir
}

// gitRepo is an empty git repository (branch main), with git run in it
// and write laying out a file in its work tree; the test is skipped
// without git.
func gitRepo(t *testing.T) (dir string, git func(args ...string), write func(name, data string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir = t.TempDir()
	git = func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write = func(name, data string) { testfile.Write(t, filepath.Join(dir, name), data) }
	git("init", "-q", "-b", "main")
	return dir, git, write
}

// builtinRstat is the built-in rstat family: its patches were made on 6.12.
func builtinRstat(t *testing.T) *patches.Family {
	t.Helper()
	m, err := patches.Load()
	if err != nil {
		t.Fatal(err)
	}
	return m.Families["rstat"]
}

func fakeConfig(t *testing.T, repo, ref string) *config.Config {
	return &config.Config{
		CacheDir: t.TempDir(),
		Workload: config.Workload{Name: "rstat"},
		Kernel:   config.Kernel{Source: "git", GitTree: repo, GitRef: ref, Jobs: 1},
	}
}

// TestPrepareRefusesBeforeBuilding: every mode that builds goes through
// Prepare (run, --resume, nightly, seeds, bisect's looks); Prepare runs
// Preflight before the image and the first kernel.
func TestPrepareRefusesBeforeBuilding(t *testing.T) {
	repo := fakeKernelRepo(t)
	ctx := context.Background()
	fam := builtinRstat(t)
	quiet := func(string, ...any) {}

	// The 6.12 family on the 6.1 tree: its stock variant's patch does
	// not apply; refused naming the family, the version and the hunk.
	cfg := fakeConfig(t, repo, "v61")
	cfg.PrimaryMetrics = []string{"read_latency_p50_us"} // needs nothing: only the patches refuse
	sel := &variants.Selection{Family: fam, Variants: []*patches.Variant{fam.Variants["stock"]}}
	_, err := Prepare(ctx, cfg, sel, quiet)
	var fe *FitError
	var be *kernel.BuildError
	if !errors.As(err, &fe) || !Refused(err) || errors.As(err, &be) {
		t.Fatalf("rstat on 6.1: %v (%T), want a FitError before any build", err, err)
	}
	for _, want := range []string{"family rstat", "6.12-6.15", "version 6.1.192", "rstat/0001-restore-conditional-relock.patch", "hunk #1", "cpuset-6.1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q lacks %q", err, want)
		}
	}

	// A primary metric the experiment names and the tree cannot
	// produce: refused before the patches are even looked at.
	cfg = fakeConfig(t, repo, "v61")
	cfg.PrimaryMetrics = []string{"rstat_lock_hold_p99_us"}
	_, err = Prepare(ctx, cfg, sel, quiet)
	var up *UnmeasurablePrimaryError
	if !errors.As(err, &up) || !up.Named || !Refused(err) || !strings.Contains(err.Error(), "6.1.192") {
		t.Fatalf("named primary on 6.1: %v", err)
	}

	// A variant at another ref is checked on its own tree: the base
	// (6.12) has the events, the candidate's ref (6.1) does not.
	cfg = fakeConfig(t, repo, "v612")
	cfg.PrimaryMetrics = []string{"rstat_lock_hold_p50_us"}
	base := &patches.Variant{Name: "base"}
	old := &patches.Variant{Name: "old", Ref: "v61"}
	two := &patches.Family{Name: "refs", Workload: "rstat", Baseline: "base", Variants: map[string]*patches.Variant{"base": base, "old": old}}
	_, err = Prepare(ctx, cfg, &variants.Selection{Family: two, Variants: []*patches.Variant{base, old}}, quiet)
	if !errors.As(err, &up) || !strings.Contains(up.Source, "at v61") {
		t.Fatalf("a variant's ref without the events: %v", err)
	}
}

// TestQuickModeFitAdvice (hostile audit): quick mode's patch that does
// not apply was answered with "quick mode (--patch FILE) measures a
// patch of your own", to a user already in it, and the built-in
// families that fit the tree. Quick mode's advice is about the patch.
func TestQuickModeFitAdvice(t *testing.T) {
	repo := fakeKernelRepo(t)
	ctx := context.Background()
	stale := filepath.Join(t.TempDir(), "stale.patch")
	os.WriteFile(stale, []byte("--- a/kernel/cgroup/rstat.c\n+++ b/kernel/cgroup/rstat.c\n@@ -1,3 +1,3 @@\n-static void nothing_like_it(void)\n+static void changed(void)\n {\n \tint cpu;\n"), 0o644)
	cfg := fakeConfig(t, repo, "v61")
	cfg.PrimaryMetrics = []string{"read_latency_p50_us"} // only the patch refuses
	if err := variants.Quick(cfg, []string{stale}); err != nil {
		t.Fatal(err)
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := Plan(ctx, cfg, sel)
	if err != nil {
		t.Fatal(err)
	}
	err = Preflight(ctx, cfg, sel.Family, plans, func(string, ...any) {})
	var fe *FitError
	if !errors.As(err, &fe) || !Refused(err) {
		t.Fatalf("stale patch in quick mode: %v (%T), want a FitError", err, err)
	}
	msg := err.Error()
	for _, want := range []string{"your patches do not fit git tree " + repo + " at v61, version 6.1.192", "stale.patch", "rebase them onto this tree", "kernel.git_tree", "--kernel.fuzz"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal lacks %q:\n%s", want, msg)
		}
	}
	for _, not := range []string{"quick mode", "--patch", "built-in famil", "cpuset-6.1"} {
		if strings.Contains(msg, not) {
			t.Errorf("refusal to a quick-mode user says %q:\n%s", not, msg)
		}
	}
}

// TestPreflightRefusesANonKernelTree (hostile audit): a git tree that is
// no kernel - no kernel Makefile, no trace headers - passed the dry run,
// since a tree without trace headers lacked no tracepoint. It is refused
// before anything is built, naming the tree and what it lacks, whether
// or not the primary metric needs a tracepoint.
func TestPreflightRefusesANonKernelTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "not a kernel"}} {
		if args[0] == "add" {
			os.WriteFile(filepath.Join(repo, "Makefile"), []byte("all:\n\tcc -o hello hello.c\n"), 0o644)
			os.WriteFile(filepath.Join(repo, "hello.c"), []byte("int main(void) { return 0; }\n"), 0o644)
		}
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	v := &patches.Variant{Name: "base"}
	fam := &patches.Family{Name: "quick", Workload: "rstat", Baseline: "base", Variants: map[string]*patches.Variant{"base": v}}
	sel := &variants.Selection{Family: fam, Variants: []*patches.Variant{v}}
	for _, primary := range [][]string{nil, {"rstat_lock_hold_p50_us"}, {"read_latency_p50_us"}} {
		cfg := fakeConfig(t, repo, "main")
		cfg.PrimaryMetrics = primary
		plans, err := Plan(ctx, cfg, sel)
		if err != nil {
			t.Fatal(err)
		}
		err = Preflight(ctx, cfg, fam, plans, func(string, ...any) {})
		var nk *kernel.NotKernelTreeError
		if !errors.As(err, &nk) || !Refused(err) {
			t.Errorf("primary %v: %v, want a refused NotKernelTreeError", primary, err)
			continue
		}
		for _, want := range []string{"git tree " + repo + " at main is not a Linux kernel source tree", "VERSION and PATCHLEVEL", "include/trace/events"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("primary %v: %q lacks %q", primary, err, want)
			}
		}
	}
}

// TestPreflightFallbackPrimary: the workload's own primary, which 6.1
// cannot produce, is replaced by its fallback, said once, and nothing is
// refused; on 6.12 nothing changes.
func TestPreflightFallbackPrimary(t *testing.T) {
	repo := fakeKernelRepo(t)
	ctx := context.Background()
	v := &patches.Variant{Name: "base"}
	fam := &patches.Family{Name: "quick", Workload: "rstat", Baseline: "base", Variants: map[string]*patches.Variant{"base": v}}
	sel := &variants.Selection{Family: fam, Variants: []*patches.Variant{v}}
	for _, tc := range []struct {
		ref, want string
		said      int
	}{{"v612", "", 0}, {"v61", "read_latency_p50_us", 1}} {
		cfg := fakeConfig(t, repo, tc.ref)
		plans, err := Plan(ctx, cfg, sel)
		if err != nil {
			t.Fatal(err)
		}
		var said []string
		rep := func(f string, a ...any) {
			if _, ok := progress.AsWarning(a); ok { // not the builder's progress
				said = append(said, fmt.Sprintf(f, a...))
			}
		}
		if err := Preflight(ctx, cfg, fam, plans, rep); err != nil {
			t.Fatalf("%s: %v", tc.ref, err)
		}
		if strings.Join(cfg.PrimaryMetrics, ",") != tc.want || len(said) != tc.said {
			t.Errorf("%s: primary %v, said %q; want %q said %d time(s)", tc.ref, cfg.PrimaryMetrics, said, tc.want, tc.said)
		}
	}
}

func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&UnmeasurablePrimaryError{Metric: "m"}, true},
		{&FitError{Err: &kernel.RefusedError{Variant: "v", Err: errors.New("hunk")}}, true},
		{fmt.Errorf("variant v: %w", &kernel.NotKernelTreeError{Source: "git tree /x at main", Missing: []string{"include/trace/events/*.h"}}), true},
		{errors.New("disk full"), false},
		{&kernel.BuildError{Err: errors.New("make")}, false},
	} {
		if got := Refused(tc.err); got != tc.want {
			t.Errorf("Refused(%v) = %v", tc.err, got)
		}
	}
}
