package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/kernel/gitfixture"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// pristineTree unpacks (once per machine: it lives in the build cache)
// the default base, Debian's kernel tarball, and returns the tree and its
// source identity.
func pristineTree(t *testing.T) (string, string) {
	t.Helper()
	t.Setenv("KREGRESS_CACHE_DIR", cacheDir())
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := pipeline.Source(cfg.Kernel)
	b := &kernel.Builder{CacheDir: cfg.CacheDir}
	tree, id, err := b.Pristine(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	return tree, id
}

// fixtureRepo makes (once per machine: it lives in the build cache) a git
// repository from Debian's kernel tarball: tag base, a branch ten commits
// on, and a topic branch with the pre-6.15 rstat loop.
func fixtureRepo(t *testing.T) *gitfixture.Repo {
	t.Helper()
	tree, id := pristineTree(t)
	man, err := patches.Load()
	if err != nil {
		t.Fatal(err)
	}
	stock, _ := man.Families["rstat"].Variant("stock")
	repo, err := gitfixture.Make(context.Background(), tree, filepath.Join(cacheDir(), "fixtures", strings.NewReplacer(":", "_", "=", "_").Replace(id)), stock.Files[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

const userChangeWorkload = `repetitions: 1
vm:
  cpus: 2
  boot_timeout: 90s
workload:
  name: rstat
  duration: 3s
  params:
    readers: "2"
    hogs: "1"
    window: 1s
selftests:
  repetitions: 0
gate_only: true
`

// runKregress runs bin/kregress with the test cache, resultsDir and the
// built agent, and returns its exit code and combined output.
func runKregress(t *testing.T, bin, resultsDir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "kregress"), args...)
	cmd.Env = append(os.Environ(), "KREGRESS_CACHE_DIR="+cacheDir(), "KREGRESS_RESULTS_DIR="+resultsDir, "KREGRESS_AGENT="+filepath.Join(bin, "kagent"), "GITHUB_STEP_SUMMARY=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// kregressRun is runKregress for commands that must succeed.
func kregressRun(t *testing.T, bin, resultsDir string, args ...string) string {
	t.Helper()
	code, out := runKregress(t, bin, resultsDir, args...)
	if code != 0 {
		t.Fatalf("kregress %v: exit %d\n%s", args, code, out)
	}
	return out
}

// TestUserChange measures a user's own change twice, for real: a `git
// format-patch` file in quick mode against Debian's tree, and two refs of
// a git repository as an experiment's variants.
func TestUserChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and boots real kernels (run `make test`)")
	}
	bin := binDir(t)
	repo := fixtureRepo(t)
	resultsDir := t.TempDir()
	dir := t.TempDir()

	// 1. Quick mode with a patch made by git format-patch.
	out, err := exec.Command("git", "--git-dir="+repo.Path, "format-patch", "-1", repo.Topic, "-o", dir, "--add-header=Message-Id: <relock.1@kregress.invalid>").Output()
	if err != nil {
		t.Fatalf("format-patch: %v", err)
	}
	patchFile := strings.TrimSpace(string(out))
	quick := filepath.Join(dir, "quick.yaml")
	os.WriteFile(quick, []byte("experiment: e2e-quick\n"+userChangeWorkload), 0o644)
	diff := kregressRun(t, bin, resultsDir, "run", "--extra-rounds", "0", "-c", quick, "--patch", patchFile)
	logAfter(t, "quick mode:\n%s", diff)
	if !strings.Contains(diff, "patched vs base") || !strings.Contains(diff, "rstat_lock_hold_p99_us") {
		t.Fatalf("quick mode printed no diff of patched vs base:\n%s", diff)
	}
	store := storetest.SQLiteIn(t, resultsDir)
	ctx := context.Background()
	run := latestRun(t, store, "e2e-quick")
	rs, _ := store.Results(ctx, run.ID)
	byName := map[string]*results.Result{}
	for _, r := range rs {
		byName[r.Variant] = r
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s: %s", r.Variant, r.Status, r.Error)
		}
	}
	pd := byName["patched"].Provenance.PatchDetails
	if len(pd) != 1 || pd[0].Subject != "cgroup/rstat: relock only when needed" || pd[0].MessageID != "relock.1@kregress.invalid" ||
		!strings.Contains(pd[0].Author, "kregress fixture") || pd[0].Name != patchFile {
		t.Fatalf("patched provenance: %+v", pd)
	}
	if len(byName["base"].Provenance.PatchDetails) != 0 {
		t.Fatalf("base carries patches: %+v", byName["base"].Provenance.PatchDetails)
	}
	show := kregressRun(t, bin, resultsDir, "results", "show", itoa(run.ID))
	if !strings.Contains(show, "relock only when needed") || !strings.Contains(show, "kregress run -c run-"+itoa(run.ID)+".yaml") {
		t.Fatalf("results show:\n%s", show)
	}

	// 2. Two refs of a git repository as variants.
	exp := filepath.Join(dir, "refs.yaml")
	os.WriteFile(exp, []byte(`experiment: e2e-refs
family: fixture
kernel:
  source: git
  git_tree: `+repo.Path+`
families:
  fixture:
    workload: rstat
    baseline: base
    variants:
      base: {ref: `+repo.Base+`}
      ten-later: {ref: `+repo.Later+`}
`+userChangeWorkload), 0o644)
	diff = kregressRun(t, bin, resultsDir, "run", "--extra-rounds", "0", "-c", exp)
	logAfter(t, "git refs:\n%s", diff)
	if !strings.Contains(diff, "ten-later vs base") {
		t.Fatalf("no diff of ten-later vs base:\n%s", diff)
	}
	run, err = store.LatestRun(ctx, "e2e-refs")
	if err != nil {
		t.Fatal(err)
	}
	rs, _ = store.Results(ctx, run.ID)
	commits := map[string]string{}
	for _, r := range rs {
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s: %s", r.Variant, r.Status, r.Error)
		}
		p := r.Provenance
		if len(p.GitCommit) != 40 || p.GitDescribe == "" || !strings.HasPrefix(p.SourceID, "git:"+p.GitCommit) {
			t.Fatalf("%s: git provenance %+v", r.Variant, p)
		}
		commits[r.Variant] = p.GitCommit
	}
	if commits["base"] == commits["ten-later"] || len(commits) != 2 {
		t.Fatalf("commits %v", commits)
	}
	if !strings.HasPrefix(byDescribe(rs, "base"), "base") || !strings.HasPrefix(byDescribe(rs, "ten-later"), "base-10-g") {
		t.Fatalf("describe: %q, %q", byDescribe(rs, "base"), byDescribe(rs, "ten-later"))
	}
	// The stored configuration names the commits, not the moving refs.
	if !strings.Contains(run.Config, "ref: "+commits["ten-later"]) {
		t.Fatalf("stored config does not pin ten-later to %s:\n%s", commits["ten-later"], run.Config)
	}
}

func byDescribe(rs []*results.Result, variant string) string {
	for _, r := range rs {
		if r.Variant == variant {
			return r.Provenance.GitDescribe
		}
	}
	return ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
