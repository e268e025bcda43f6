package doctor

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Fake is a host whose answers a test sets.
type Fake struct {
	Paths   map[string]bool
	KVM     string
	Absent  []string
	NoDpkg  bool
	Free    uint64
	Cache   int64
	StoreOK bool
	NoStore bool
	// ReadOnly are the directories Writable refuses.
	ReadOnly map[string]bool
	// BeforeMissing, when set, runs as the package query starts.
	BeforeMissing func()
}

func (f Fake) LookPath(file string) (string, error) {
	if f.Paths[file] {
		return "/usr/bin/" + file, nil
	}
	return "", errors.New("executable file not found in $PATH")
}
func (f Fake) KVMUnusable() string { return f.KVM }
func (f Fake) Missing([]string) ([]string, error) {
	if f.BeforeMissing != nil {
		f.BeforeMissing()
	}
	if f.NoDpkg {
		return nil, errors.New("no dpkg-query")
	}
	return f.Absent, nil
}
func (f Fake) Exists(p string) bool             { return f.Paths[p] }
func (f Fake) FreeBytes(string) (uint64, error) { return f.Free, nil }
func (f Fake) DirBytes(string) (int64, error)   { return f.Cache, nil }
func (f Fake) Store(s string) (string, bool, error) {
	return s, !f.NoStore, map[bool]error{true: nil, false: errors.New("connection refused")}[f.StoreOK]
}

func (f Fake) Writable(dir string) error {
	if f.ReadOnly[dir] {
		return errors.New(dir + ": permission denied")
	}
	return nil
}

func healthy() Fake {
	return Fake{Paths: map[string]bool{"qemu-system-x86_64": true, "/usr/src/linux-source-6.12.tar.xz": true, "/opt/kagent": true, "/bin/busybox": true},
		Free: 100 << 30, Cache: 3 << 30, StoreOK: true}
}

var settings = Settings{QEMU: "qemu-system-x86_64", Accel: "auto", Agent: "/opt/kagent", Busybox: "/bin/busybox", CacheDir: "/c",
	StoreSpec: "/r/kregress.db", KernelSource: "debian", SourceTarball: "/usr/src/linux-source-6.12.tar.xz", DebianPackage: "linux-source-6.12"}

func statusOf(checks []Check, name string) Check {
	for _, c := range checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

func TestDoctorVerdicts(t *testing.T) {
	if cs := Run(healthy(), settings); Failed(cs, true) {
		t.Fatalf("healthy host failed: %+v", cs)
	}
	for _, c := range []struct {
		name   string
		env    func(*Fake)
		s      func(*Settings)
		check  string
		status Status
		fix    string
	}{
		{"no qemu", func(f *Fake) { delete(f.Paths, "qemu-system-x86_64") }, nil, "qemu", Fail, "apt-get install qemu-system-x86"},
		{"kvm_pvm, auto", func(f *Fake) { f.KVM = "/dev/kvm is kvm_pvm (paravirtual KVM)" }, nil, "kvm", Warn, "kvm_intel or kvm_amd"},
		{"kvm_pvm, accel kvm", func(f *Fake) { f.KVM = "/dev/kvm is kvm_pvm" }, func(s *Settings) { s.Accel = "kvm" }, "kvm", Fail, "vm.accel auto"},
		{"packages missing", func(f *Fake) { f.Absent = []string{"flex", "bison"} }, nil, "packages", Fail, "apt-get install flex bison"},
		{"not debian", func(f *Fake) { f.NoDpkg = true }, nil, "packages", Warn, "equivalents"},
		{"no source", func(f *Fake) { delete(f.Paths, "/usr/src/linux-source-6.12.tar.xz") }, nil, "kernel source", Fail, "apt-get install linux-source-6.12"},
		{"no git tree", nil, func(s *Settings) { s.KernelSource, s.GitTree = "git", "/nope" }, "kernel source", Fail, "kernel.git_tree"},
		{"no agent", func(f *Fake) { delete(f.Paths, "/opt/kagent") }, nil, "agent", Fail, "make build"},
		{"disk full", func(f *Fake) { f.Free = 1 << 30 }, nil, "disk", Fail, "cache_dir"},
		{"cache not writable", func(f *Fake) { f.ReadOnly = map[string]bool{"/c": true} }, nil, "cache", Fail, "KREGRESS_CACHE_DIR"},
		{"disk low", func(f *Fake) { f.Free = 10 << 30 }, nil, "disk", Warn, "prune"},
		{"store down", func(f *Fake) { f.StoreOK = false }, nil, "store", Fail, "PGPASSWORD"},
		{"no store yet", func(f *Fake) { f.NoStore = true }, nil, "store", OK, ""},
	} {
		env, s := healthy(), settings
		if c.env != nil {
			c.env(&env)
		}
		if c.s != nil {
			c.s(&s)
		}
		cs := Run(env, s)
		got := statusOf(cs, c.check)
		if got.Status != c.status || !strings.Contains(got.Fix, c.fix) {
			t.Errorf("%s: %s is %s (fix %q), want %s with a fix naming %q", c.name, c.check, got.Status, got.Fix, c.status, c.fix)
		}
		if want := c.status == Fail; Failed(cs, false) != want {
			t.Errorf("%s: Failed = %v", c.name, !want)
		}
		if c.status == Warn && !Failed(cs, true) {
			t.Errorf("%s: a warning does not fail --strict", c.name)
		}
	}
}

// The packages doctor checks are the Makefile's (make deps installs
// them), but for the kernel source, checked per configuration.
func TestPackagesMatchMakefile(t *testing.T) {
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^DEB_PACKAGES := ((?:.*\\\n)*.*)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no DEB_PACKAGES in the Makefile")
	}
	var want []string
	for _, p := range strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " ")) {
		if !strings.HasPrefix(p, "linux-source-") {
			want = append(want, p)
		}
	}
	if strings.Join(want, " ") != strings.Join(Packages, " ") {
		t.Fatalf("Makefile DEB_PACKAGES %v, doctor.Packages %v", want, Packages)
	}
}

// The real host: a cache or store below a regular file can never be
// created, and doctor says so (it called such a store "none yet", OK);
// a fresh directory below a writable one can.
func TestHostWritable(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/file"
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (Host{}).Writable(dir + "/new/cache"); err != nil {
		t.Errorf("a directory to create below a writable one: %v", err)
	}
	if err := (Host{}).Writable(file + "/cache"); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("below a regular file: %v", err)
	}
	if _, _, err := (Host{}).Store(file + "/sub/k.db"); err == nil || !strings.Contains(err.Error(), "cannot be created") {
		t.Errorf("a store below a regular file: %v", err)
	}
	if where, exists, err := (Host{}).Store(dir + "/new/k.db"); err != nil || exists {
		t.Errorf("a store to create: %s %v %v", where, exists, err)
	}
	if _, err := os.Stat(dir + "/new"); err == nil {
		t.Error("doctor created the store's directory")
	}
}
