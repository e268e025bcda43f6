package bundle

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const lddOut = `	linux-vdso.so.1 (0x00007ffd)
	libpthread.so.0 => /lib/x86_64-linux-gnu/libpthread.so.0 (0x00007f83)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f83)
	/lib64/ld-linux-x86-64.so.2 (0x00007f83)
`

func TestParseLdd(t *testing.T) {
	libs, _, err := ParseLdd([]byte(lddOut), "/usr/bin/hackbench")
	if err != nil || strings.Join(libs, " ") != "/lib/x86_64-linux-gnu/libpthread.so.0 /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2" {
		t.Fatalf("%v %v", libs, err)
	}
	_, _, err = ParseLdd([]byte(lddOut+"\tlibJudy.so.1 => not found\n"), "/usr/bin/stress-ng")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "libJudy.so.1 of /usr/bin/stress-ng") {
		t.Fatalf("an unresolved library: %v", err)
	}
}

func FuzzParseLdd(f *testing.F) {
	f.Add([]byte(lddOut))
	f.Add([]byte("x => not found\n=>\n /a (b\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		libs, relative, err := ParseLdd(out, "p")
		for _, l := range libs {
			if err == nil && !strings.HasPrefix(l, "/") {
				t.Fatalf("relative library %q", l)
			}
		}
		for _, l := range relative {
			if err == nil && (l == "" || strings.HasPrefix(l, "/")) {
				t.Fatalf("library %q listed as relative", l)
			}
		}
	})
}

func TestFindProgram(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "data.txt"), []byte("x"), 0o644)
	if p, err := FindProgram("./run.sh", dir); err != nil || p != filepath.Join(dir, "run.sh") {
		t.Fatalf("relative path: %q %v", p, err)
	}
	if p, err := FindProgram("sh", dir); err != nil || !filepath.IsAbs(p) {
		t.Fatalf("on PATH: %q %v", p, err)
	}
	for _, bad := range []string{"./data.txt", "./missing", "no-such-program-here", "."} {
		var nf *NotFoundError
		if _, err := FindProgram(bad, dir); !errors.As(err, &nf) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// dynamicShell is the host's /bin/sh and its loader: a dynamically
// linked program to pack (the test skips on a host where it is static).
func dynamicShell(t *testing.T) (sh, interp string) {
	t.Helper()
	sh, err := FindProgram("sh", "/")
	if err != nil {
		t.Skip("no sh")
	}
	interp, err = interpreter(sh)
	if err != nil || interp == "" {
		t.Skipf("%s is not dynamically linked here (%v)", sh, err)
	}
	return sh, interp
}

// TestProgramPacksLibrariesLddNames packs the host's own /bin/sh
// (dynamically linked on Debian) with a fake ldd, and a script alone.
func TestProgramPacksLibrariesLddNames(t *testing.T) {
	sh, interp := dynamicShell(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libfake.so.1")
	os.WriteFile(lib, []byte("lib"), 0o644)
	defer func(old func(context.Context, string, string) ([]byte, error)) { Ldd = old }(Ldd)
	Ldd = func(context.Context, string, string) ([]byte, error) {
		return []byte("\tlibfake.so.1 => " + lib + " (0x1)\n\t" + interp + " (0x2)\n"), nil
	}
	files, err := Program(context.Background(), sh, "/opt/kregress/bench/sh")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "/opt/kregress/bench/sh "+interp+" "+lib {
		t.Fatalf("packed %v", names)
	}
	Ldd = func(context.Context, string, string) ([]byte, error) {
		return []byte("\tlibgone.so => not found\n"), nil
	}
	if _, err := Program(context.Background(), sh, "/x"); err == nil || !strings.Contains(err.Error(), "libgone.so") {
		t.Fatalf("unresolved library: %v", err)
	}
	script := filepath.Join(dir, "b.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)
	if files, err := Program(context.Background(), script, "/opt/b.sh"); err != nil || len(files) != 1 {
		t.Fatalf("a script is itself alone: %v %v", files, err)
	}
}

func TestTree(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "d", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "a"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(dir, "d", "sub", "b"), []byte("b"), 0o755)
	files, err := Tree(dir, "d", "/opt/data")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != "/opt/data/a" || files[1].Name != "/opt/data/sub/b" || files[1].Mode != 0o755 {
		t.Fatalf("%+v", files)
	}
	if err := CheckSize(files); err != nil {
		t.Fatal(err)
	}
	if files, err := Tree(filepath.Join(dir, "d"), ".", "/opt/data"); err != nil || len(files) != 2 {
		t.Fatalf("the root itself: %+v %v", files, err)
	}
	if _, err := Tree(dir, "none", "/opt/x"); err == nil {
		t.Fatal("a missing source was packed")
	}
}

// A copy packs regular files and directories only: a symbolic link, to
// a file or a directory, inside the tree or on the way to it, and a
// special file are refused naming them, never followed nor left out
// without a word.
func TestTreeRefusesLinksAndSpecialFiles(t *testing.T) {
	for name, c := range map[string]struct {
		setup func(dir string)
		rel   string
		want  string // below dir
	}{
		"a linked file inside":      {func(dir string) { os.Symlink("/etc/passwd", filepath.Join(dir, "d", "link")) }, "d", "d/link is a symbolic link"},
		"a linked directory inside": {func(dir string) { os.Symlink("/etc", filepath.Join(dir, "d", "etc")) }, "d", "d/etc is a symbolic link"},
		"the file a link":           {func(dir string) { os.Symlink("/etc/passwd", filepath.Join(dir, "pw")) }, "pw", "pw is a symbolic link"},
		"the directory a link":      {func(dir string) { os.Symlink("/etc", filepath.Join(dir, "cfg")) }, "cfg/passwd", "cfg is a symbolic link"},
		"a named pipe inside":       {func(dir string) { syscall.Mkfifo(filepath.Join(dir, "d", "fifo"), 0o600) }, "d", "d/fifo is a named pipe"},
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "d"), 0o755)
		os.WriteFile(filepath.Join(dir, "d", "a"), []byte("a"), 0o644)
		c.setup(dir)
		files, err := Tree(dir, c.rel, "/opt/data")
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), filepath.Join(dir, c.want)) {
			t.Errorf("%s: %+v, %v; want a refusal naming %s", name, files, err, c.want)
		}
	}
}

// elfWithInterp is a minimal x86-64 ELF executable whose PT_INTERP is
// interp: enough for the loader check, which reads nothing else.
func elfWithInterp(interp string) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	ident := [16]byte{0x7f, 'E', 'L', 'F', 2, 1, 1}
	b.Write(ident[:])
	binary.Write(&b, le, struct {
		Type, Machine                                        uint16
		Version                                              uint32
		Entry, Phoff, Shoff                                  uint64
		Flags                                                uint32
		Ehsize, Phentsize, Phnum, Shentsize, Shnum, Shstrndx uint16
	}{Type: 2, Machine: 62, Version: 1, Phoff: 64, Ehsize: 64, Phentsize: 56, Phnum: 1})
	n := uint64(len(interp) + 1)
	binary.Write(&b, le, struct {
		Type, Flags                             uint32
		Off, Vaddr, Paddr, Filesz, Memsz, Align uint64
	}{Type: 3, Flags: 4, Off: 120, Filesz: n, Memsz: n, Align: 1})
	b.WriteString(interp + "\x00")
	return b.Bytes()
}

// A program's loader and libraries land at their own paths in the
// image: one that is a path of the image's own (/init, /bin/kagent) or
// a relative one (which the kernel would look up in the working
// directory, packing ./init as a second /init) is refused naming it.
func TestProgramRefusesLoadersAndLibrariesOverTheImage(t *testing.T) {
	dir := t.TempDir()
	defer func(old func(context.Context, string, string) ([]byte, error)) { Ldd = old }(Ldd)
	lddSays := ""
	Ldd = func(context.Context, string, string) ([]byte, error) { return []byte(lddSays), nil }
	for name, c := range map[string]struct{ interp, ldd, want string }{
		"a relative interpreter": {"init", "", `interpreter "init" of `},
		"a dotted interpreter":   {"./init", "", `interpreter "./init" of `},
		"the interpreter /init":  {"/init", "", "interpreter /init of "},
		"a climbing interpreter": {"/lib/../init", "", "interpreter /lib/../init of "},
		"a library /bin/kagent":  {"/lib64/ld-linux-x86-64.so.2", "\tlibx.so => /bin/kagent (0x1)\n", "library /bin/kagent of "},
		"a library in /etc":      {"/lib64/ld-linux-x86-64.so.2", "\t/etc/kagent/authorized_keys (0x1)\n", "library /etc/kagent/authorized_keys of "},
	} {
		prog := filepath.Join(dir, "prog")
		os.WriteFile(prog, elfWithInterp(c.interp), 0o755)
		lddSays = c.ldd
		files, err := Program(context.Background(), prog, "/opt/kregress/bench/prog")
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), c.want+prog) {
			t.Errorf("%s: %+v, %v; want a refusal with %q", name, files, err, c.want+prog)
		}
	}
}

// TestProgramRunInResolvesRelativeLibraries: a library ldd finds by a
// path relative to its working directory (kselftest's rseq, linked with
// -Wl,-rpath=./) is accepted only from ProgramRunIn, and only as a
// regular file inside the directory the program runs in; Program refuses
// it, since the guest does not run a benchmark from its host directory.
func TestProgramRunInResolvesRelativeLibraries(t *testing.T) {
	sh, interp := dynamicShell(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "librseq.so"), []byte("lib"), 0o644)
	defer func(old func(context.Context, string, string) ([]byte, error)) { Ldd = old }(Ldd)
	var ranIn string
	lddSays := func(lib string) {
		Ldd = func(_ context.Context, _, dir string) ([]byte, error) {
			ranIn = dir
			return []byte("\tlibrseq.so => " + lib + " (0x1)\n\t" + interp + " (0x2)\n"), nil
		}
	}
	lddSays("./librseq.so")
	files, err := ProgramRunIn(context.Background(), sh, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ranIn != dir || len(files) != 2 || files[1].Name != interp {
		t.Fatalf("ldd ran in %q; packed %v, want the program and its loader (the library is in %s already)", ranIn, files, dir)
	}
	if _, err := Program(context.Background(), sh, "/opt/sh"); err == nil || !strings.Contains(err.Error(), "rpath of ./") {
		t.Fatalf("Program with a library relative to the working directory: %v", err)
	}
	os.Symlink("/etc/hostname", filepath.Join(dir, "liblink.so"))
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "sub"))
	os.WriteFile(filepath.Join(dir, "real", "libsub.so"), []byte("lib"), 0o644)
	for lib, want := range map[string]string{"./libgone.so": "no such file", "../librseq.so": "outside it",
		"./liblink.so": "symbolic link", "./sub/libsub.so": "symbolic link"} {
		lddSays(lib)
		var nf *NotFoundError
		if _, err := ProgramRunIn(context.Background(), sh, dir); !errors.As(err, &nf) || !strings.Contains(err.Error(), want) {
			t.Errorf("library %s: %v, want a NotFoundError saying %q", lib, err, want)
		}
	}

	// Linked by a path (gcc main.c ./libx.so): ldd prints no arrow.
	Ldd = func(context.Context, string, string) ([]byte, error) {
		return []byte("\t./libgone.so (0x1)\n\t" + interp + " (0x2)\n"), nil
	}
	if _, err := ProgramRunIn(context.Background(), sh, dir); err == nil || !strings.Contains(err.Error(), "libgone.so") {
		t.Errorf("a library linked by a relative path, missing: %v", err)
	}
	if _, err := Program(context.Background(), sh, "/opt/sh"); err == nil || !strings.Contains(err.Error(), "rpath of ./") {
		t.Errorf("Program with a library linked by a relative path: %v", err)
	}

	// A relative program path is made absolute before ldd runs in dir.
	Ldd = func(_ context.Context, program, _ string) ([]byte, error) {
		if !filepath.IsAbs(program) {
			return []byte("ldd: " + program + ": No such file or directory\n"), nil
		}
		return []byte("\t" + interp + " (0x2)\n"), nil
	}
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, sh)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ProgramRunIn(context.Background(), rel, dir); err != nil {
		t.Errorf("a relative program path %s: %v", rel, err)
	}
}

// TestParseLddRefusesWhatLddCouldNotRead: ldd's own complaint is an
// error, never an empty list of libraries.
func TestParseLddRefusesWhatLddCouldNotRead(t *testing.T) {
	for _, out := range []string{"ldd: ./x: No such file or directory\n", "\tnot a dynamic executable\n"} {
		if _, _, err := ParseLdd([]byte(out), "/x"); err == nil || !strings.Contains(err.Error(), "/x") {
			t.Errorf("%q: %v, want an error naming the program", out, err)
		}
	}
}
