package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
)

// fakeSys records calls; failing names a call (e.g. "swapon") that fails.
type fakeSys struct {
	calls   []string
	failing string
}

func (f *fakeSys) do(call string) error {
	f.calls = append(f.calls, call)
	if f.failing != "" && strings.HasPrefix(call, f.failing) {
		return errors.New("refused")
	}
	return nil
}

func (f *fakeSys) Mount(source, target, fstype string, flags uintptr, data string) error {
	return f.do(fmt.Sprintf("mount %s %s %s %#x %q", filepath.Base(source), filepath.Base(target), fstype, flags, data))
}
func (f *fakeSys) Unmount(target string) error { return f.do("umount " + filepath.Base(target)) }
func (f *fakeSys) Swapon(path string) error    { return f.do("swapon " + filepath.Base(path)) }
func (f *fakeSys) Swapoff(path string) error   { return f.do("swapoff " + filepath.Base(path)) }
func (f *fakeSys) Run(name string, args ...string) error {
	for i, a := range args {
		args[i] = filepath.Base(a)
	}
	return f.do(name + " " + strings.Join(args, " "))
}

// fullGuest lays out the sysfs and procfs files of a kernel with every
// feature the tests want: zram0 unused, hot_add handing out zram1.
func fullGuest(t *testing.T, sys System) Env {
	root := t.TempDir()
	e := Env{Sys: sys, SysRoot: filepath.Join(root, "sys"), ProcRoot: filepath.Join(root, "proc"), DevRoot: filepath.Join(root, "dev"),
		Work: filepath.Join(root, "mnt/kselftest"), SwapSize: "512M", WorkSize: "256M"}
	testfile.Write(t, filepath.Join(e.ProcRoot, "swaps"), "Filename\n")
	testfile.Write(t, filepath.Join(e.SysRoot, "fs/cgroup/cgroup.controllers"), "cpuset cpu memory pids\n")
	testfile.Write(t, filepath.Join(e.SysRoot, "class/zram-control/hot_add"), "1\n")
	testfile.Write(t, filepath.Join(e.SysRoot, "block/zram0/disksize"), "0\n")
	testfile.Write(t, filepath.Join(e.SysRoot, "block/zram1/disksize"), "0\n")
	testfile.Write(t, filepath.Join(e.SysRoot, "kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"), "0\n")
	testfile.Write(t, filepath.Join(e.SysRoot, "module/zswap/parameters/enabled"), "N\n")
	if err := os.MkdirAll(filepath.Join(e.SysRoot, "kernel/debug"), 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPrepareAndUndo(t *testing.T) {
	sys := &fakeSys{}
	e := fullGuest(t, sys)
	p := e.Prepare()
	if p.WorkDir != e.Work {
		t.Errorf("work dir %q, want %q; notes %q", p.WorkDir, e.Work, p.Notes)
	}
	if got := testfile.Read(t, filepath.Join(e.SysRoot, "block/zram0/disksize")); got != "512M" {
		t.Errorf("swap device sized %q", got)
	}
	if got := testfile.Read(t, filepath.Join(e.SysRoot, "block/zram1/disksize")); got != "256M" {
		t.Errorf("work device sized %q", got)
	}
	if got := testfile.Read(t, filepath.Join(e.SysRoot, "module/zswap/parameters/enabled")); got != "Y" {
		t.Errorf("zswap left %q", got)
	}
	want := []string{
		"mkswap zram0", "swapon zram0",
		"mke2fs -q -b 4096 zram1", "mount zram1 kselftest ext2 0x0 \"\"",
		"mount none cgroup  0x20 \"memory_hugetlb_accounting\"",
		"mount debugfs debug debugfs 0x0 \"\"",
	}
	if !reflect.DeepEqual(sys.calls, want) {
		t.Errorf("setup calls\n%q\nwant\n%q", sys.calls, want)
	}
	if len(p.Notes) != 6 || p.Notes[0] != "controllers enabled for the root's children: cpuset cpu memory pids" {
		t.Errorf("notes %q", p.Notes)
	}
	// A plain file keeps the last write: the last controller enabled.
	if got := testfile.Read(t, filepath.Join(e.SysRoot, "fs/cgroup/cgroup.subtree_control")); got != "+pids" {
		t.Errorf("subtree_control %q", got)
	}

	sys.calls = nil
	if err := p.Undo(); err != nil {
		t.Fatal(err)
	}
	want = []string{"umount debug", "mount none cgroup  0x20 \"\"", "umount kselftest", "swapoff zram0"}
	if !reflect.DeepEqual(sys.calls, want) {
		t.Errorf("undo calls\n%q\nwant\n%q", sys.calls, want)
	}
	if got := testfile.Read(t, filepath.Join(e.SysRoot, "module/zswap/parameters/enabled")); got != "N\n" {
		t.Errorf("zswap restored to %q", got)
	}
	for _, dev := range []string{"zram0", "zram1"} {
		if got := testfile.Read(t, filepath.Join(e.SysRoot, "block", dev, "reset")); got != "1" {
			t.Errorf("%s not reset: %q", dev, got)
		}
	}
}

// A kernel without the features gets notes saying what is missing, the
// tests a tmpfs directory, and no call at all.
func TestPrepareBareKernel(t *testing.T) {
	sys := &fakeSys{}
	root := t.TempDir()
	e := Env{Sys: sys, SysRoot: filepath.Join(root, "sys"), ProcRoot: filepath.Join(root, "proc"), DevRoot: filepath.Join(root, "dev"), Work: filepath.Join(root, "w")}
	p := e.Prepare()
	if p.WorkDir != "" || len(sys.calls) != 0 {
		t.Fatalf("work dir %q, calls %q", p.WorkDir, sys.calls)
	}
	joined := strings.Join(p.Notes, "\n")
	for _, want := range []string{"controllers: none enabled", "no CONFIG_SWAP", "no zram (CONFIG_ZRAM)", "no CONFIG_HUGETLBFS", "no CONFIG_ZSWAP", "no CONFIG_DEBUG_FS"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes do not say %q:\n%s", want, joined)
		}
	}
	if err := p.Undo(); err != nil {
		t.Fatal(err)
	}
}

// A step that fails gives its device back and says why.
func TestSwaponFailsReleasesDevice(t *testing.T) {
	sys := &fakeSys{failing: "swapon"}
	e := fullGuest(t, sys)
	p := e.Prepare()
	if !strings.Contains(p.Notes[1], "swap: none (swapon") {
		t.Errorf("swap note %q", p.Notes[1])
	}
	if got := testfile.Read(t, filepath.Join(e.SysRoot, "block/zram0/reset")); got != "1" {
		t.Errorf("zram0 not given back: %q", got)
	}
	if err := p.Undo(); err != nil {
		t.Fatal(err)
	}
	for _, c := range sys.calls {
		if c == "swapoff zram0" {
			t.Errorf("swapoff of a device never swapped on: %q", sys.calls)
		}
	}
}

// The partition script gets the fair server's runtime zeroed on every CPU,
// restored after; other tests leave it alone.
func TestFairServerOffForPartitionTests(t *testing.T) {
	e := fullGuest(t, &fakeSys{})
	for _, cpu := range []string{"cpu0", "cpu1"} {
		testfile.Write(t, filepath.Join(e.SysRoot, "kernel/debug/sched/fair_server", cpu, "runtime"), "50000000\n")
	}
	runtime0 := filepath.Join(e.SysRoot, "kernel/debug/sched/fair_server/cpu0/runtime")
	p := e.For([]string{"test_core", "test_cpuset"}).Prepare()
	if got := testfile.Read(t, runtime0); got != "50000000\n" {
		t.Fatalf("fair server touched for tests that do not need it: %q", got)
	}
	p.Undo()
	p = e.For([]string{"test_core", "test_cpuset_prs.sh"}).Prepare()
	if got := testfile.Read(t, runtime0); got != "0" {
		t.Fatalf("runtime %q, want 0", got)
	}
	if last := p.Notes[len(p.Notes)-1]; !strings.HasPrefix(last, "fair server: runtime 0 on 2 of 2 CPUs") {
		t.Errorf("note %q", last)
	}
	if err := p.Undo(); err != nil {
		t.Fatal(err)
	}
	if got := testfile.Read(t, runtime0); got != "50000000\n" {
		t.Fatalf("runtime restored to %q", got)
	}
}
