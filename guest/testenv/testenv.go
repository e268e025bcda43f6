// Package testenv gives the kernel's cgroup selftests, on kregress's
// minimal guest, the machine they assume: a swap device, a disk filesystem
// as their working directory, the cgroup2 mount option that accounts
// hugetlb pages to memcgs, zswap switched on and debugfs mounted. Without
// them most of test_memcontrol, test_zswap and test_hugetlb_memcg fail on
// every kernel (orchestrator/selftests/known.yaml keeps the diagnosis).
//
// Everything is set up just before the selftests and undone after them:
// swap would turn a workload's memory pressure, which ends in the OOM
// killer by design, into swapping. A feature the kernel lacks (a user's
// config without zram, say) is noted and skipped, not fatal: the tests
// that need it then fail, and the notes say why.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// System is what Prepare does to the guest; the real one makes system
// calls and runs busybox, a test's records them.
type System interface {
	Mount(source, target, fstype string, flags uintptr, data string) error
	Unmount(target string) error
	Swapon(path string) error
	Swapoff(path string) error
	// Run runs a program of the image (busybox's mkswap, mke2fs).
	Run(name string, args ...string) error
}

// Env is where the guest's files are; Sys is empty on a real guest.
type Env struct {
	Sys      System
	SysRoot  string // "/sys"
	ProcRoot string // "/proc"
	DevRoot  string // "/dev"
	Work     string // the working directory's mount point
	// SwapSize and WorkSize are the zram devices' sizes, as zram's
	// disksize takes them.
	SwapSize, WorkSize string
	// FairServerOff zeroes the fair server's deadline runtime on every
	// CPU (For sets it for the tests that need it).
	FairServerOff bool
}

// For returns e set up for the named tests as well: test_cpuset_prs.sh
// offlines the last CPU of a partition, which this kernel (6.12) refuses
// with EBUSY while the fair server's deadline bandwidth is accounted to
// that CPU's root domain (cpuset_cpu_inactive -> dl_bw_check_overflow):
// the script's TEST_MATRIX[24] fails on every kernel and the script stops
// there. With the runtime at 0 it runs to the end.
func (e Env) For(tests []string) Env {
	for _, t := range tests {
		if t == "test_cpuset_prs.sh" {
			e.FairServerOff = true
		}
	}
	return e
}

// Default is a guest's: the selftests' scratch directory is /mnt/kselftest.
func Default(sys System) Env {
	return Env{Sys: sys, SysRoot: "/sys", ProcRoot: "/proc", DevRoot: "/dev", Work: "/mnt/kselftest", SwapSize: "512M", WorkSize: "256M"}
}

// Prepared is what Prepare set up.
type Prepared struct {
	// WorkDir is where the tests should run: the disk filesystem, or ""
	// when there is none (the caller then uses a tmpfs directory).
	WorkDir string
	// Notes say what was set up and what was not, for the document.
	Notes []string
	undo  []func() error
}

// Prepare sets up what it can and returns how to undo it; an error only
// when undoing half of it would be needed and failed, never because the
// kernel lacks a feature.
func (e Env) Prepare() *Prepared {
	p := &Prepared{}
	e.controllers(p)
	e.swap(p)
	e.workDir(p)
	e.hugetlbAccounting(p)
	e.zswap(p)
	e.debugfs(p)
	if e.FairServerOff {
		e.fairServerOff(p)
	}
	return p
}

// Undo reverses Prepare's steps, last first, and joins their errors.
func (p *Prepared) Undo() error {
	var errs []error
	for i := len(p.undo) - 1; i >= 0; i-- {
		errs = append(errs, p.undo[i]())
	}
	p.undo = nil
	return errors.Join(errs...)
}

func (p *Prepared) notef(format string, args ...any) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}

// zramDevice returns the name of a fresh zram device: zram0 when the
// driver made it and nothing uses it, else one from hot_add.
func (e Env) zramDevice() (string, error) {
	ctl := filepath.Join(e.SysRoot, "class/zram-control/hot_add")
	if _, err := os.Stat(ctl); err != nil {
		return "", fmt.Errorf("no zram (CONFIG_ZRAM)")
	}
	if size, err := os.ReadFile(filepath.Join(e.SysRoot, "block/zram0/disksize")); err == nil && strings.TrimSpace(string(size)) == "0" {
		return "zram0", nil
	}
	// Reading hot_add makes a device and returns its number.
	id, err := os.ReadFile(ctl)
	if err != nil {
		return "", fmt.Errorf("zram hot_add: %w", err)
	}
	return "zram" + strings.TrimSpace(string(id)), nil
}

// zramUp sizes a fresh zram device and returns its /dev path and how to
// give it back.
func (e Env) zramUp(size string) (dev string, release func() error, err error) {
	name, err := e.zramDevice()
	if err != nil {
		return "", nil, err
	}
	sysDir := filepath.Join(e.SysRoot, "block", name)
	if err := os.WriteFile(filepath.Join(sysDir, "disksize"), []byte(size), 0o644); err != nil {
		return "", nil, fmt.Errorf("%s disksize %s: %w", name, size, err)
	}
	release = func() error {
		if err := os.WriteFile(filepath.Join(sysDir, "reset"), []byte("1"), 0o644); err != nil {
			return fmt.Errorf("testenv: reset %s: %w", name, err)
		}
		return nil
	}
	return filepath.Join(e.DevRoot, name), release, nil
}

// controllers enables every controller the root cgroup has for its
// children, as systemd does on a normal machine: test_hugetlb_memcg writes
// memory.max of a child of the root without enabling +memory first. Not
// undone: a test may leave a child that uses a controller, and disabling
// it would then fail (the guest powers off after the gate anyway).
func (e Env) controllers(p *Prepared) {
	cg := filepath.Join(e.SysRoot, "fs/cgroup")
	avail, err := os.ReadFile(filepath.Join(cg, "cgroup.controllers"))
	if err != nil {
		p.notef("controllers: none enabled (%v)", err)
		return
	}
	var enabled []string
	for _, c := range strings.Fields(string(avail)) {
		// One write per controller: one the kernel refuses (a threaded
		// subtree, say) must not keep the others off.
		if err := os.WriteFile(filepath.Join(cg, "cgroup.subtree_control"), []byte("+"+c), 0o644); err != nil {
			p.notef("controllers: +%s refused (%v)", c, err)
			continue
		}
		enabled = append(enabled, c)
	}
	p.notef("controllers enabled for the root's children: %s", strings.Join(enabled, " "))
}

func (e Env) swap(p *Prepared) {
	if _, err := os.Stat(filepath.Join(e.ProcRoot, "swaps")); err != nil {
		p.notef("swap: none (no CONFIG_SWAP: /proc/swaps missing)")
		return
	}
	dev, release, err := e.zramUp(e.SwapSize)
	if err != nil {
		p.notef("swap: none (%v)", err)
		return
	}
	if err := e.Sys.Run("mkswap", dev); err != nil {
		p.notef("swap: none (mkswap %s: %v)", dev, err)
		release()
		return
	}
	if err := e.Sys.Swapon(dev); err != nil {
		p.notef("swap: none (swapon %s: %v)", dev, err)
		release()
		return
	}
	p.undo = append(p.undo, release, func() error { return e.Sys.Swapoff(dev) })
	p.notef("swap: %s on %s", e.SwapSize, dev)
}

func (e Env) workDir(p *Prepared) {
	dev, release, err := e.zramUp(e.WorkSize)
	if err != nil {
		p.notef("working directory: tmpfs (%v)", err)
		return
	}
	// zram's blocks are 4 KiB: an ext2 of busybox's default 1 KiB blocks
	// would not mount (EINVAL).
	if err := e.Sys.Run("mke2fs", "-q", "-b", "4096", dev); err != nil {
		p.notef("working directory: tmpfs (mke2fs -b 4096 %s: %v)", dev, err)
		release()
		return
	}
	if err := os.MkdirAll(e.Work, 0o755); err != nil {
		p.notef("working directory: tmpfs (%v)", err)
		release()
		return
	}
	if err := e.Sys.Mount(dev, e.Work, "ext2", 0, ""); err != nil {
		p.notef("working directory: tmpfs (mount ext2 %s: %v)", dev, err)
		release()
		return
	}
	p.undo = append(p.undo, release, func() error { return e.Sys.Unmount(e.Work) })
	p.WorkDir = e.Work
	p.notef("working directory: ext2 (%s) on %s", e.WorkSize, dev)
}

func (e Env) hugetlbAccounting(p *Prepared) {
	cg := filepath.Join(e.SysRoot, "fs/cgroup")
	if _, err := os.Stat(filepath.Join(e.SysRoot, "kernel/mm/hugepages")); err != nil {
		p.notef("hugetlb: none (no CONFIG_HUGETLBFS)")
		return
	}
	if err := e.Sys.Mount("none", cg, "", unix.MS_REMOUNT, "memory_hugetlb_accounting"); err != nil {
		p.notef("hugetlb: not accounted to memcgs (remount %s: %v)", cg, err)
		return
	}
	p.undo = append(p.undo, func() error { return e.Sys.Mount("none", cg, "", unix.MS_REMOUNT, "") })
	p.notef("hugetlb: accounted to memcgs (cgroup2 memory_hugetlb_accounting)")
}

func (e Env) zswap(p *Prepared) {
	f := filepath.Join(e.SysRoot, "module/zswap/parameters/enabled")
	old, err := os.ReadFile(f)
	if err != nil {
		p.notef("zswap: none (no CONFIG_ZSWAP)")
		return
	}
	if err := os.WriteFile(f, []byte("Y"), 0o644); err != nil {
		p.notef("zswap: off (%v)", err)
		return
	}
	p.undo = append(p.undo, func() error { return os.WriteFile(f, old, 0o644) })
	p.notef("zswap: on")
}

func (e Env) debugfs(p *Prepared) {
	dir := filepath.Join(e.SysRoot, "kernel/debug")
	if _, err := os.Stat(dir); err != nil {
		p.notef("debugfs: none (no CONFIG_DEBUG_FS)")
		return
	}
	if err := e.Sys.Mount("debugfs", dir, "debugfs", 0, ""); err != nil {
		p.notef("debugfs: not mounted (%v)", err)
		return
	}
	p.undo = append(p.undo, func() error { return e.Sys.Unmount(dir) })
	p.notef("debugfs: mounted")
}

// fairServerOff needs debugfs (mounted by the step before).
func (e Env) fairServerOff(p *Prepared) {
	cpus, _ := filepath.Glob(filepath.Join(e.SysRoot, "kernel/debug/sched/fair_server/cpu*/runtime"))
	if len(cpus) == 0 {
		p.notef("fair server: none to turn off (no sched/fair_server in debugfs)")
		return
	}
	done := 0
	for _, f := range cpus {
		old, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(f, []byte("0"), 0o644)
		}
		if err != nil {
			p.notef("fair server: %s left as it was (%v)", f, err)
			continue
		}
		p.undo = append(p.undo, func() error { return os.WriteFile(f, old, 0o644) })
		done++
	}
	p.notef("fair server: runtime 0 on %d of %d CPUs (test_cpuset_prs.sh offlines the last CPU of a partition)", done, len(cpus))
}

// run runs one of the image's programs, its output in the error.
func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
