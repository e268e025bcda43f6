package selftests

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/images/bundle"
	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/results/verdict"
)

// targetsTree is a kernel tree whose Makefiles stand in for the kernel's:
// `make headers` makes O/usr/include, and kselftest's `make TARGETS=x
// install` installs what the real one would for x: a script and a C
// program linked with the LDFLAGS it is given (alpha), a nested target
// (filesystems/epoll), a program whose rule ignores LDFLAGS (dyn), and
// one whose static link fails as 6.12's timers does (nostatic).
func targetsTree(t *testing.T) (tree, makes string) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	tree = t.TempDir()
	makes = filepath.Join(t.TempDir(), "makes")
	ks := filepath.Join(tree, KselftestDir)
	if err := os.MkdirAll(ks, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(tree, "Makefile"), "headers:\n\tmkdir -p $(O)/usr/include/linux\n\techo headers >> "+makes+"\n")
	write(filepath.Join(ks, "prog.c"), "#include <stdio.h>\nint main(void){puts(\"ok 1 prog\");return 0;}\n")
	write(filepath.Join(ks, "Makefile"), `TARGETS += alpha
TARGETS += dyn
TARGETS += filesystems/epoll
TARGETS += nostatic
I := $(KSFT_INSTALL_PATH)/$(TARGETS)
install:
	echo "$(TARGETS) $(KHDR_INCLUDES) LDFLAGS=$(LDFLAGS)" >> `+makes+`
ifeq ($(TARGETS),nostatic)
	@if [ -n "$(LDFLAGS)" ]; then echo "cc -static -o prog prog.c"; echo "/usr/bin/ld: libc.a(clock_adjtime.o): in function clock_adjtime:"; echo "(.text+0x0): multiple definition of clock_adjtime"; exit 1; fi
endif
	mkdir -p $(I) $(O)
	printf '#!/bin/bash\necho "ok 1 s"\n' > $(I)/run.sh
	echo "$(TARGETS):run.sh" > $(KSFT_INSTALL_PATH)/kselftest-list.txt
ifeq ($(TARGETS),dyn)
	gcc -o $(I)/prog prog.c
else
	gcc $(LDFLAGS) -o $(I)/prog prog.c
endif
	echo "$(TARGETS):prog" >> $(KSFT_INSTALL_PATH)/kselftest-list.txt
`)
	return tree, makes
}

// The Makefile's TARGETS, then the directories it does not list that
// kselftest's build builds all the same (6.12's sched, locking); not a
// directory without a lib.mk Makefile.
func TestTargetsListsTheMakefiles(t *testing.T) {
	tree, _ := targetsTree(t)
	for dir, mk := range map[string]string{"sched": "include ../lib.mk\n", "tools": "all:\n", "empty": ""} {
		os.MkdirAll(filepath.Join(tree, KselftestDir, dir), 0o755)
		if mk != "" {
			os.WriteFile(filepath.Join(tree, KselftestDir, dir, "Makefile"), []byte(mk), 0o644)
		}
	}
	got, err := Targets(context.Background(), tree)
	if want := []string{"alpha", "dyn", "filesystems/epoll", "nostatic", "sched"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Targets = %v, %v; want %v", got, err, want)
	}
}

// A hostile tree's Makefiles are read bounded, never through a link:
// the top Makefile or a target's as a link to /dev/zero (which ran the
// host out of memory) or /dev/urandom (which never ended), or a regular
// file of gigabytes, is refused at once naming the file. A cancelled
// scan stops.
func TestTargetsRefusesHostileMakefiles(t *testing.T) {
	for name, c := range map[string]struct {
		rel, link string
		size      int64
	}{
		"top to /dev/zero":       {rel: "Makefile", link: "/dev/zero"},
		"top to /dev/urandom":    {rel: "Makefile", link: "/dev/urandom"},
		"target to /dev/zero":    {rel: "sched/Makefile", link: "/dev/zero"},
		"target to /dev/urandom": {rel: "sched/Makefile", link: "/dev/urandom"},
		"target of 4 GiB":        {rel: "sched/Makefile", size: 4 << 30},
	} {
		t.Run(name, func(t *testing.T) {
			tree, _ := targetsTree(t)
			p := filepath.Join(tree, KselftestDir, filepath.FromSlash(c.rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.Remove(p)
			if c.link != "" {
				if err := os.Symlink(c.link, p); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(p, nil, 0o644); err != nil || os.Truncate(p, c.size) != nil {
				t.Fatal(err)
			}
			_, err := Targets(context.Background(), tree)
			want := p + " is a symbolic link"
			if c.link == "" {
				want = p + " is larger than 1 MiB"
			}
			if err == nil || !strings.Contains(err.Error(), want) || verdict.ExitOf(err) != verdict.ExitUsage {
				t.Fatalf("err = %v (exit %v), want it to say %q, exit 2", err, verdict.ExitOf(err), want)
			}
		})
	}
	tree, _ := targetsTree(t)
	os.MkdirAll(filepath.Join(tree, KselftestDir, "sched"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Targets(ctx, tree); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled scan: %v, want context.Canceled", err)
	}
}

// An unknown target is refused before anything builds, with the tree's
// list, as a usage error (exit 2).
func TestUnknownTargetRefused(t *testing.T) {
	tree, makes := targetsTree(t)
	b := &Builder{CacheDir: t.TempDir(), Bash: "/bin/sh"}
	_, err := b.BuildTargets(context.Background(), tree, "src", "gcc", []string{"alpha", "schedd", "../cgroup"})
	var u *UnknownTargetsError
	if !errors.As(err, &u) || !reflect.DeepEqual(u.Unknown, []string{"schedd", "../cgroup"}) {
		t.Fatalf("err = %v, want the unknown targets schedd and ../cgroup", err)
	}
	if !strings.Contains(err.Error(), "it has: alpha dyn filesystems/epoll nostatic") {
		t.Errorf("error does not list the tree's targets: %v", err)
	}
	if verdict.ExitOf(err) != verdict.ExitUsage {
		t.Errorf("exit %v, want usage", verdict.ExitOf(err))
	}
	if _, serr := os.Stat(makes); serr == nil {
		t.Errorf("make ran for a refused gate")
	}
}

// A target builds with kselftest's own install, static, into the cache
// (the tree untouched), its tests named collection:program, its files at
// their place under TargetsGuestDir with bash for its scripts; a second
// build is the cache's.
func TestBuildTargets(t *testing.T) {
	tree, makes := targetsTree(t)
	b := &Builder{CacheDir: t.TempDir(), Bash: "/bin/sh"}
	got, err := b.BuildTargets(context.Background(), tree, "src", "gcc", []string{"alpha", "filesystems/epoll"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0].Tests, []string{"alpha:run.sh", "alpha:prog"}) ||
		!reflect.DeepEqual(got[1].Tests, []string{"filesystems/epoll:run.sh", "filesystems/epoll:prog"}) || !got[0].Scripts {
		t.Fatalf("targets %+v", got)
	}
	files, err := b.TargetFiles(got)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	for _, want := range []string{"usr/lib/kselftest/targets/alpha/prog", "usr/lib/kselftest/targets/filesystems/epoll/run.sh", "bin/bash"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("image files %v lack %s", names, want)
		}
	}
	if _, err := b.BuildTargets(context.Background(), tree, "src", "gcc", []string{"alpha"}); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(makes)
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) != 3 || lines[0] != "headers" || !strings.HasPrefix(lines[1], "alpha -isystem "+b.CacheDir) {
		t.Errorf("makes run:\n%s\nwant headers once, then each target once, with the cached headers", log)
	}
	entries, _ := os.ReadDir(filepath.Join(tree, KselftestDir))
	if len(entries) != 2 {
		t.Errorf("the build wrote into the tree: %v", entries)
	}
}

// fakeLdd makes bundle.Ldd answer out for every program, for the test.
func fakeLdd(t *testing.T, out string) {
	t.Helper()
	old := bundle.Ldd
	bundle.Ldd = func(context.Context, string, string) ([]byte, error) { return []byte(out), nil }
	t.Cleanup(func() { bundle.Ldd = old })
}

// hostLib is a file standing in for a shared library of the host.
func hostLib(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("\x7fELF fake library"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A target whose static link fails is built again without -static; its
// program is dynamic, and it says why (the linker's line), also when the
// install comes from the cache.
func TestStaticFailureFallsBackToDynamic(t *testing.T) {
	tree, makes := targetsTree(t)
	lib := hostLib(t, "libc.so.6")
	fakeLdd(t, "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibc.so.6 => "+lib+" (0x00007f00)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f01)\n")
	b := &Builder{CacheDir: t.TempDir(), Bash: "/bin/sh"}
	for round := range 2 {
		got, err := b.BuildTargets(context.Background(), tree, "src", "gcc", []string{"nostatic"})
		if err != nil {
			t.Fatal(err)
		}
		tg := got[0]
		if !strings.Contains(tg.Dynamic, "static link failed") || !strings.Contains(tg.Dynamic, "libc.a(clock_adjtime.o): in function clock_adjtime: (.text+0x0): multiple definition of clock_adjtime") {
			t.Errorf("round %d: Dynamic = %q, want the static link's failure", round, tg.Dynamic)
		}
		i := slices.IndexFunc(tg.Files, func(f Binary) bool { return f.Name == "nostatic/prog" })
		if i < 0 || !isDynamicELF(tg.Files[i].Path) {
			t.Errorf("round %d: prog is not the dynamic build", round)
		}
	}
	log, _ := os.ReadFile(makes)
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[1], "LDFLAGS=-static") || !strings.HasSuffix(lines[2], "LDFLAGS=") {
		t.Errorf("makes run:\n%s\nwant headers, the static build, then one dynamic build (the second round cached)", log)
	}
}

// A dynamic program's loader and libraries land in the image at their
// host paths (as a benchmark's do), the program taken dynamic (Packed),
// each library once however many programs need it; a static target's
// programs stay checked as static.
func TestDynamicTargetLibrariesInImage(t *testing.T) {
	tree, _ := targetsTree(t)
	lib := hostLib(t, "libfake.so.1")
	fakeLdd(t, "\tlibfake.so.1 => "+lib+" (0x00007f00)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f01)\n")
	b := &Builder{CacheDir: t.TempDir(), Bash: "/bin/sh"}
	got, err := b.BuildTargets(context.Background(), tree, "src", "gcc", []string{"dyn", "nostatic", "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got[0].Dynamic, "does not take LDFLAGS=-static for dyn/prog") || got[2].Dynamic != "" {
		t.Errorf("Dynamic = %q, %q, want dyn's Makefile named and alpha static", got[0].Dynamic, got[2].Dynamic)
	}
	files, err := b.TargetFiles(got)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	byName := map[string]initramfs.File{}
	for _, f := range files {
		count[f.Name]++
		byName[f.Name] = f
	}
	if f := byName[lib]; count[lib] != 1 || !f.Packed || f.Path != lib {
		t.Errorf("library %s: %d in the image (%+v), want once, packed", lib, count[lib], f)
	}
	if f := byName["/lib64/ld-linux-x86-64.so.2"]; count[f.Name] != 1 || !f.Packed {
		t.Errorf("the loader is not in the image once: %+v", files)
	}
	if !byName["usr/lib/kselftest/targets/dyn/prog"].Packed || byName["usr/lib/kselftest/targets/alpha/prog"].Packed {
		t.Errorf("dyn/prog must be packed (dynamic), alpha/prog not (checked static): %+v", files)
	}
}

// A library that does not resolve on the host is an error naming the
// target, the program and the library.
func TestUnresolvedLibraryRefused(t *testing.T) {
	tree, _ := targetsTree(t)
	fakeLdd(t, "\tlibnosuch.so.3 => not found\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f01)\n")
	b := &Builder{CacheDir: t.TempDir(), Bash: "/bin/sh"}
	_, err := b.BuildTargets(context.Background(), tree, "src", "gcc", []string{"nostatic"})
	var nf *bundle.NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "target nostatic: program nostatic/prog: library libnosuch.so.3") {
		t.Fatalf("err = %v, want the target, program and library named", err)
	}
}

// A target that builds neither static nor dynamic is an error with both
// reasons and the dynamic build's log.
func TestTargetBuildsNeitherWay(t *testing.T) {
	tree, _ := targetsTree(t)
	mk := filepath.Join(tree, KselftestDir, "Makefile")
	text, _ := os.ReadFile(mk)
	text = []byte(strings.Replace(string(text), `@if [ -n "$(LDFLAGS)" ]; then`, `@if true; then`, 1))
	if err := os.WriteFile(mk, text, 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Builder{CacheDir: t.TempDir(), Bash: "/bin/sh"}
	_, err := b.BuildTargets(context.Background(), tree, "src", "gcc", []string{"nostatic"})
	if err == nil || !strings.Contains(err.Error(), "did not build, static (static link failed: /usr/bin/ld: libc.a(clock_adjtime.o): in function clock_adjtime: (.text+0x0): multiple definition") || !strings.Contains(err.Error(), "or dynamic") {
		t.Fatalf("err = %v, want both builds' failures", err)
	}
}
