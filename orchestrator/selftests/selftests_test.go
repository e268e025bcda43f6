package selftests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fakeTree has the selftests directory with two test sources and no
// Makefile: only the checks that run before make are exercised here (the
// real build is in the e2e tests).
func fakeTree(t *testing.T) string {
	tree := t.TempDir()
	dir := filepath.Join(tree, SuiteDir)
	os.MkdirAll(dir, 0o755)
	for _, n := range []string{"test_core.c", "test_pids.c", "cgroup_util.c"} {
		os.WriteFile(filepath.Join(dir, n), []byte("int main(){}\n"), 0o644)
	}
	return tree
}

func TestAvailableAndUnknownName(t *testing.T) {
	tree := fakeTree(t)
	got, err := Available(tree)
	if err != nil || strings.Join(got, ",") != "test_core,test_pids" {
		t.Fatalf("Available = %v, %v", got, err)
	}
	b := &Builder{CacheDir: t.TempDir()}
	for _, bad := range []string{"test_nope", "../test_core", "cgroup_util"} {
		_, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_core", bad})
		if err == nil || !strings.Contains(err.Error(), bad+" is not a cgroup selftest") || !strings.Contains(err.Error(), "test_core, test_pids") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// A binary already in the cache is not rebuilt (the fake tree has no
// Makefile, so any make would fail).
func TestCachedBinaryIsReused(t *testing.T) {
	tree := fakeTree(t)
	b := &Builder{CacheDir: t.TempDir()}
	if _, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_core"}); err == nil || !strings.Contains(err.Error(), "test_core did not build") {
		t.Fatalf("first build should fail naming the binary: %v", err)
	}
	// Put a binary where the cache keeps it, as a finished build would.
	entries, _ := os.ReadDir(filepath.Join(b.CacheDir, "selftests"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v", entries)
	}
	keyDir := filepath.Join(b.CacheDir, "selftests", entries[0].Name())
	os.WriteFile(filepath.Join(keyDir, "test_core"), []byte("binary"), 0o755)
	s, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_core"})
	if err != nil || len(s.Binaries) != 1 || s.Binaries[0].Path != filepath.Join(keyDir, "test_core") {
		t.Fatalf("cached: %+v %v", s, err)
	}
}

// mm programs are named mm/<program>; one kregress does not build is
// refused with the list of those it does, and a known one is compiled
// from its sources (here missing, so the error names the program).
func TestMMPrograms(t *testing.T) {
	tree := fakeTree(t)
	b := &Builder{CacheDir: t.TempDir()}
	_, err := b.Build(context.Background(), tree, "src", "gcc", []string{"mm/ksm_tests"})
	if err == nil || !strings.Contains(err.Error(), "mm/ksm_tests is not a cgroup selftest") || !strings.Contains(err.Error(), "mm/compaction_test, mm/madv_populate") {
		t.Errorf("unknown mm program: %v", err)
	}
	_, err = b.Build(context.Background(), tree, "src", "gcc", []string{"mm/compaction_test"})
	if err == nil || !strings.Contains(err.Error(), "mm/compaction_test did not build") || !strings.Contains(err.Error(), "compaction_test.c") {
		t.Errorf("mm program without sources: %v", err)
	}
}

// A script is taken from the tree as it is, its helper is built like a
// test (here: found in the cache), and bash and the shims come with it.
func TestScriptWithHelperAndSupport(t *testing.T) {
	tree := fakeTree(t)
	os.WriteFile(filepath.Join(tree, SuiteDir, "test_cpuset_prs.sh"), []byte("#!/bin/bash\necho hi\n"), 0o755)
	bash := filepath.Join(t.TempDir(), "bash-static")
	os.WriteFile(bash, []byte("static bash"), 0o755)
	b := &Builder{CacheDir: t.TempDir(), Bash: bash}
	_, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_cpuset_prs.sh"})
	if err == nil || !strings.Contains(err.Error(), "wait_inotify did not build") {
		t.Fatalf("the helper should have been built (and failed without a Makefile): %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(b.CacheDir, "selftests"))
	keyDir := filepath.Join(b.CacheDir, "selftests", entries[0].Name())
	os.WriteFile(filepath.Join(keyDir, "wait_inotify"), []byte("binary"), 0o755)
	_, err = b.Build(context.Background(), tree, "src", "gcc", []string{"test_cpuset_prs.sh", "test_core"})
	if err == nil || !strings.Contains(err.Error(), "test_core did not build") {
		t.Fatalf("test_core has no binary in the cache: %v", err)
	}
	os.WriteFile(filepath.Join(keyDir, "test_core"), []byte("binary"), 0o755)
	s, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_cpuset_prs.sh", "test_core"})
	if err != nil {
		t.Fatal(err)
	}
	var names, support []string
	for _, bin := range s.Binaries {
		names = append(names, bin.Name)
	}
	for _, f := range s.Support {
		support = append(support, f.Name)
		data, _ := os.ReadFile(f.Path)
		if f.Name == "/bin/lscpu" && !strings.Contains(string(data), "CPU(s):") {
			t.Errorf("lscpu shim: %s", data)
		}
	}
	if strings.Join(names, " ") != "test_cpuset_prs.sh wait_inotify test_core" {
		t.Errorf("binaries %v", names)
	}
	if strings.Join(support, " ") != "/bin/bash /bin/fmt /bin/lscpu" {
		t.Errorf("support %v", support)
	}
	if data, _ := os.ReadFile(filepath.Join(keyDir, "test_cpuset_prs.sh")); string(data) != "#!/bin/bash\necho hi\n" {
		t.Errorf("script copied as %q", data)
	}
	// Without a static bash the error says which package to install.
	b.Bash = filepath.Join(t.TempDir(), "none")
	if _, err := b.Build(context.Background(), tree, "src", "gcc", []string{"test_cpuset_prs.sh"}); err == nil || !strings.Contains(err.Error(), "bash-static") {
		t.Errorf("missing bash: %v", err)
	}
	if n, who := MinCPUs([]string{"test_core", "test_cpuset_prs.sh"}); n != 8 || who != "test_cpuset_prs.sh" {
		t.Errorf("MinCPUs = %d %s", n, who)
	}
}

// The shims do what the partition script asks of lscpu and fmt.
func TestShims(t *testing.T) {
	fmtShim, _ := shims.ReadFile("shims/fmt")
	lscpu, _ := shims.ReadFile("shims/lscpu")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fmt"), fmtShim, 0o755)
	os.WriteFile(filepath.Join(dir, "lscpu"), lscpu, 0o755)
	cmd := exec.Command("sh", "-c", `echo 3 3 "5	7" | `+filepath.Join(dir, "fmt")+` -1 | sort | uniq -u`)
	out, err := cmd.Output()
	if err != nil || string(out) != "5\n7\n" {
		t.Errorf("fmt -1 | sort | uniq -u: %q %v", out, err)
	}
	out, err = exec.Command(filepath.Join(dir, "lscpu")).Output()
	cpus, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*")
	if err != nil || !regexp.MustCompile(`^CPU\(s\):\s+`+strconv.Itoa(len(cpus))+`\n$`).Match(out) {
		t.Errorf("lscpu: %q %v (want %d CPUs)", out, err, len(cpus))
	}
}

// A gate list written for a newer tree is split into the tests this tree
// has and those it lacks, in the list's order: 6.1 has no test_cpuset.
func TestInTree(t *testing.T) {
	tree := fakeTree(t)
	have, missing, err := InTree(tree, []string{"test_pids", "test_cpuset", "test_core", "mm/compaction_test", "test_cpuset_prs.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(have, ",") != "test_pids,test_core" {
		t.Errorf("have %v", have)
	}
	if strings.Join(missing, ",") != "test_cpuset,mm/compaction_test,test_cpuset_prs.sh" {
		t.Errorf("missing %v", missing)
	}
}
