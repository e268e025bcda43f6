package selftests

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/verdict"
)

// targetsTree is a kernel tree whose Makefiles stand in for the kernel's:
// `make headers` makes O/usr/include, and kselftest's `make TARGETS=x
// install` installs what the real one would for x: a script and a C
// program linked with the LDFLAGS it is given (alpha), a nested target
// (filesystems/epoll), and a program whose rule ignores LDFLAGS (dyn).
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
I := $(KSFT_INSTALL_PATH)/$(TARGETS)
install:
	echo "$(TARGETS) $(KHDR_INCLUDES)" >> `+makes+`
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
	got, err := Targets(tree)
	if want := []string{"alpha", "dyn", "filesystems/epoll", "sched"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Targets = %v, %v; want %v", got, err, want)
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
	if !strings.Contains(err.Error(), "it has: alpha dyn filesystems/epoll") {
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

// A target whose programs do not link static is refused naming them: the
// image carries no shared libraries.
func TestDynamicTargetRefused(t *testing.T) {
	tree, _ := targetsTree(t)
	b := &Builder{CacheDir: t.TempDir(), Bash: "/bin/sh"}
	_, err := b.BuildTargets(context.Background(), tree, "src", "gcc", []string{"dyn"})
	if err == nil || !strings.Contains(err.Error(), "target dyn: dyn/prog linked dynamically") {
		t.Fatalf("err = %v, want dyn/prog refused as dynamic", err)
	}
}
