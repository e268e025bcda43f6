// Package doctor checks that a host can run kregress and says, for each
// problem, what fixes it: QEMU, KVM (or why guests will run under TCG),
// the Debian packages a build needs, the kernel source, the agent and
// busybox the guest image is made of, disk space, the cache's size and
// the results store. The host is reached through Env, so each verdict is
// tested with a fake one.
package doctor

import (
	"fmt"
	"strings"
)

// Status is a check's outcome.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn" // kregress works, less well (no KVM: TCG)
	Fail Status = "fail" // a run would fail
	Info Status = "info" // a figure, not a verdict (the cache's size)
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	// Fix is what to do about a warn or fail.
	Fix string `json:"fix,omitempty"`
}

// Env is the host as the checks see it.
type Env interface {
	// LookPath finds a program (exec.LookPath).
	LookPath(file string) (string, error)
	// KVMUnusable is why KVM cannot run an ordinary kernel here, or ""
	// (vm.KVMUnusable).
	KVMUnusable() string
	// Missing returns which of pkgs are not installed; an error when
	// it cannot tell (no dpkg: not Debian).
	Missing(pkgs []string) ([]string, error)
	// Exists reports whether path exists.
	Exists(path string) bool
	// FreeBytes is the space free to an unprivileged user on the
	// filesystem of dir (or of its nearest existing parent).
	FreeBytes(dir string) (uint64, error)
	// DirBytes is the size of the files under dir (0 if it is absent).
	DirBytes(dir string) (int64, error)
	// Store opens the results store read-only and reads it, returning
	// where it is; exists is false for a SQLite file not created yet,
	// whose directory it creates as a first run would (and removes what
	// it created). A SQLite store this user could not write, or not
	// create, is an error.
	Store(spec string) (where string, exists bool, err error)
	// Writable is nil when this user can write in dir, or create it
	// (its nearest existing parent is a directory they can write in).
	Writable(dir string) error
}

// Settings is what the checks need from the resolved configuration.
type Settings struct {
	QEMU          string // vm.qemu
	Accel         string // vm.accel
	Agent         string // agent
	Busybox       string // busybox
	CacheDir      string // cache_dir
	StoreSpec     string // store, or results_dir/kregress.db
	KernelSource  string // kernel.source: debian or git
	SourceTarball string // kernel.source debian: the package's tarball
	DebianPackage string // kernel.debian_package
	GitTree       string // kernel.source git: kernel.git_tree
}

// Packages are the Debian packages a run needs besides the kernel
// source (the Makefile's DEB_PACKAGES without linux-source-*; a test
// keeps the two lists equal).
var Packages = []string{"qemu-system-x86", "build-essential", "flex", "bison", "bc", "libelf-dev", "libssl-dev",
	"cpio", "xz-utils", "lz4", "busybox-static", "bash-static", "patch", "ccache", "git", "ca-certificates",
	// The built-in benchmark experiments (hackbench, stress-ng, fio-ram)
	// pack these programs into their guest images.
	"rt-tests", "stress-ng", "fio",
	// Libraries kselftest targets link: mqueue (popt), clone3 (libcap).
	"libpopt-dev", "libcap-dev"}

// Free space below which a first build fails (an unpacked source and a
// build workspace or two; their sizes: docs/design-notes.md, "Figures behind choices in the code").
const (
	minFreeBytes  = 5 << 30
	warnFreeBytes = 20 << 30
)

// Run runs every check.
func Run(env Env, s Settings) []Check { return RunEach(env, s, nil) }

// RunEach runs every check, giving each to done (when not nil) as soon
// as it ends, so that a report can print it before the slower checks
// (the packages, the store) have run.
func RunEach(env Env, s Settings, done func(Check)) []Check {
	var out []Check
	add := func(name string, st Status, detail, fix string) {
		c := Check{Name: name, Status: st, Detail: detail, Fix: fix}
		out = append(out, c)
		if done != nil {
			done(c)
		}
	}

	if p, err := env.LookPath(s.QEMU); err != nil {
		add("qemu", Fail, fmt.Sprintf("%s not found (%v)", s.QEMU, err), "apt-get install qemu-system-x86, or set vm.qemu to the QEMU binary")
	} else {
		add("qemu", OK, p, "")
	}

	switch why := env.KVMUnusable(); {
	case s.Accel == "tcg":
		add("kvm", OK, "not used: vm.accel is tcg", "")
	case why != "" && s.Accel == "kvm":
		add("kvm", Fail, why+"; vm.accel is kvm, so every boot would fail", "set vm.accel auto (or tcg), or run on a host with hardware virtualization and the kvm_intel or kvm_amd module")
	case why != "":
		add("kvm", Warn, why+": guests run under TCG (emulated, slower; the detection limits are TCG's, see `kregress experiments`)",
			"for KVM: a host (or a VM with nested virtualization) with VT-x/AMD-V, the kvm_intel or kvm_amd module loaded, and read-write access to /dev/kvm (group kvm)")
	default:
		add("kvm", OK, "/dev/kvm opens; vm.accel auto boots a probe guest to confirm before using it", "")
	}

	switch missing, err := env.Missing(Packages); {
	case err != nil:
		add("packages", Warn, fmt.Sprintf("cannot check (%v)", err), "install the equivalents of: "+strings.Join(Packages, " "))
	case len(missing) > 0:
		add("packages", Fail, "missing: "+strings.Join(missing, " "), "apt-get install "+strings.Join(missing, " ")+" (or, as root, make deps)")
	default:
		add("packages", OK, fmt.Sprintf("all %d installed", len(Packages)), "")
	}

	switch s.KernelSource {
	case "debian":
		if env.Exists(s.SourceTarball) {
			add("kernel source", OK, s.SourceTarball, "")
		} else {
			add("kernel source", Fail, s.SourceTarball+" is missing", "apt-get install "+s.DebianPackage+", or set kernel.source git and kernel.git_tree")
		}
	case "git":
		if env.Exists(s.GitTree) {
			add("kernel source", OK, "git tree "+s.GitTree, "")
		} else {
			add("kernel source", Fail, "kernel.git_tree "+s.GitTree+" does not exist", "set kernel.git_tree (--kernel.git-tree) to a local kernel git repository")
		}
	}

	for _, f := range []struct{ name, path, fix string }{
		{"agent", s.Agent, "make build (kagent goes next to kregress), or set agent to a kagent binary"},
		{"busybox", s.Busybox, "apt-get install busybox-static, or set busybox to a static busybox"},
	} {
		if env.Exists(f.path) {
			add(f.name, OK, f.path, "")
		} else {
			add(f.name, Fail, f.path+" does not exist", f.fix)
		}
	}

	if free, err := env.FreeBytes(s.CacheDir); err != nil {
		add("disk", Warn, fmt.Sprintf("cannot read the free space of %s: %v", s.CacheDir, err), "")
	} else {
		detail := fmt.Sprintf("%s free for cache_dir %s", gib(int64(free)), s.CacheDir)
		switch {
		case free < minFreeBytes:
			add("disk", Fail, detail+"; a first build needs about 4 GB (source 1.5-1.7 GB + build 1.9-2.3 GB)", "free space, or set cache_dir on a larger filesystem")
		case free < warnFreeBytes:
			add("disk", Warn, detail+"; each further kernel source or git tree needs about 4 GB", "free space, prune old kernels from cache_dir, or move cache_dir")
		default:
			add("disk", OK, detail, "")
		}
	}
	if err := env.Writable(s.CacheDir); err != nil {
		add("cache", Fail, fmt.Sprintf("cache_dir %s cannot be written: %v", s.CacheDir, err), "set cache_dir (--cache-dir, KREGRESS_CACHE_DIR) to a directory you can write")
	} else if n, err := env.DirBytes(s.CacheDir); err != nil {
		add("cache", Warn, fmt.Sprintf("cannot size %s: %v", s.CacheDir, err), "")
	} else {
		add("cache", Info, fmt.Sprintf("%s in %s (kernel sources, builds, images; safe to delete, rebuilt on demand)", gib(n), s.CacheDir), "")
	}

	switch where, exists, err := env.Store(s.StoreSpec); {
	case err != nil:
		add("store", Fail, fmt.Sprintf("%s: %v", where, err), "check --store / KREGRESS_STORE / results_dir, the database server, or its password (PGPASSWORD, ~/.pgpass)")
	case !exists:
		add("store", OK, where+": none yet; the first kregress run creates it", "")
	default:
		add("store", OK, where+": reachable", "")
	}
	return out
}

// Failed reports whether any check failed; with strict, a warning
// counts too.
func Failed(checks []Check, strict bool) bool {
	for _, c := range checks {
		if c.Status == Fail || (strict && c.Status == Warn) {
			return true
		}
	}
	return false
}

func gib(n int64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
