package initramfs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/images/cpio"
)

// staticBinary builds a tiny static Go program to stand in for kagent.
func staticBinary(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	out := filepath.Join(dir, "kagent")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return out
}

func TestBuildReproducibleAndListable(t *testing.T) {
	if _, err := os.Stat("/bin/busybox"); err != nil {
		t.Fatal("busybox-static is not installed (make deps installs it)")
	}
	agent := staticBinary(t)
	cache := t.TempDir()
	img, err := Build(Spec{Agent: agent, Busybox: "/bin/busybox", CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(img.Path)
	os.Remove(img.Path)
	img2, err := Build(Spec{Agent: agent, Busybox: "/bin/busybox", CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(img2.Path)
	if !bytes.Equal(first, second) || img.Key != img2.Key {
		t.Fatal("the same inputs gave a different image")
	}
	if img.HostPublic == nil || img.ClientKey == nil {
		t.Fatal("keys missing")
	}
	if st, _ := os.Stat(filepath.Join(cache, "images", img.Key, "host_key")); st.Mode().Perm() != 0o600 {
		t.Fatalf("host key mode %v", st.Mode())
	}
	// Debian's cpio must read what we wrote.
	raw := first
	cmd := exec.Command("cpio", "-t", "-v")
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cpio -t: %v: %s", err, out)
	}
	list := string(out)
	for _, want := range []string{" init", "bin/kagent", "bin/doexec", "bin/sh -> busybox", "etc/kagent/host_key", "etc/kagent/authorized_keys", "etc/hosts", "dev/console"} {
		if !strings.Contains(list, want) {
			t.Fatalf("image lacks %q:\n%s", want, list)
		}
	}
}

func TestRefusesDynamicBinary(t *testing.T) {
	_, err := Build(Spec{Agent: "/bin/ls", Busybox: "/bin/busybox", CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Fatalf("dynamic agent accepted: %v", err)
	}
	_, err = Build(Spec{Agent: "/nonexistent/kagent", Busybox: "/bin/busybox", CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "make") {
		t.Fatalf("missing agent: %v", err)
	}
}

// TestConcurrentBuildsAgreeOnKeys: two processes building the same image
// at once must end up with one host key (they once each generated their
// own, and one guest then failed host key pinning).
func TestConcurrentBuildsAgreeOnKeys(t *testing.T) {
	agent := staticBinary(t)
	cache := t.TempDir()
	imgs := make([]*Image, 4)
	errs := make([]error, 4)
	done := make(chan int)
	for i := range imgs {
		go func(i int) {
			imgs[i], errs[i] = Build(Spec{Agent: agent, Busybox: "/bin/busybox", CacheDir: cache})
			done <- i
		}(i)
	}
	for range imgs {
		<-done
	}
	for i := range imgs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(imgs[i].HostPublic.Marshal(), imgs[0].HostPublic.Marshal()) ||
			!bytes.Equal(imgs[i].ClientKey.PublicKey().Marshal(), imgs[0].ClientKey.PublicKey().Marshal()) {
			t.Fatal("concurrent builds disagree on the image's keys")
		}
	}
}

// Extra files (the selftests) land at their path with their parents, and
// change the image's key.
func TestExtraFiles(t *testing.T) {
	agent := staticBinary(t)
	cache := t.TempDir()
	plain, err := Build(Spec{Agent: agent, Busybox: "/bin/busybox", CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Agent: agent, Busybox: "/bin/busybox", CacheDir: cache,
		Extra: []File{{Name: "usr/lib/kselftest/cgroup/test_core", Path: agent}, {Name: "usr/lib/kselftest/cgroup/test_pids", Path: agent}}}
	img, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if img.Key == plain.Key {
		t.Fatal("extra files did not change the image key")
	}
	data, _ := os.ReadFile(img.Path)
	raw := data
	cmd := exec.Command("cpio", "-t")
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cpio -t: %v: %s", err, out)
	}
	list := strings.Split(strings.TrimSpace(string(out)), "\n")
	index := map[string]int{}
	for i, l := range list {
		if _, dup := index[l]; dup {
			t.Fatalf("%s twice in the image", l)
		}
		index[l] = i
	}
	order := []string{"usr", "usr/lib", "usr/lib/kselftest", "usr/lib/kselftest/cgroup", "usr/lib/kselftest/cgroup/test_core", "usr/lib/kselftest/cgroup/test_pids"}
	for i, name := range order {
		if _, ok := index[name]; !ok {
			t.Fatalf("image lacks %s:\n%s", name, out)
		}
		if i > 0 && index[name] < index[order[i-1]] {
			t.Fatalf("%s comes before %s", name, order[i-1])
		}
	}
	spec.Extra = []File{{Name: "usr/lib/x", Path: "/bin/ls"}}
	if _, err := Build(spec); err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Fatalf("dynamic extra accepted: %v", err)
	}
}

// A benchmark's packed files (images/bundle) may be dynamically linked,
// keep their permission bits, and are part of the key.
func TestPackedFiles(t *testing.T) {
	agent := staticBinary(t)
	cache := t.TempDir()
	data := filepath.Join(t.TempDir(), "data")
	os.WriteFile(data, []byte("one"), 0o644)
	spec := Spec{Agent: agent, Busybox: "/bin/busybox", CacheDir: cache,
		Extra: []File{{Name: "/opt/kregress/bench/ls", Path: "/bin/ls", Packed: true, Mode: 0o755}, {Name: "/opt/data", Path: data, Packed: true, Mode: 0o644}}}
	img, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(img.Path)
	entries, err := cpio.Read(raw)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]uint32{}
	for _, e := range entries {
		modes[e.Name] = e.Mode & 0o777
	}
	if modes["opt/kregress/bench/ls"] != 0o755 || modes["opt/data"] != 0o644 {
		t.Fatalf("modes %o %o", modes["opt/kregress/bench/ls"], modes["opt/data"])
	}
	os.WriteFile(data, []byte("two"), 0o644)
	again, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if again.Key == img.Key {
		t.Fatal("a packed file's content did not change the image key")
	}
}
