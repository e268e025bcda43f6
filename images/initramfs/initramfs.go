// Package initramfs builds the guest image: an uncompressed newc cpio with
// busybox (a shell for humans, mount, ip, poweroff), kagent, a small C init,
// and a per-image SSH host key plus the host side's client public key. The
// keys are generated into the cache on first build and never leave it; the
// archive is reproducible from them and the binaries.
package initramfs

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/kregress/kregress/images/cpio"
	"github.com/kregress/kregress/internal/filelock"
)

// The image's two C programs (.c.txt: a .c file would make go build want
// cgo), compiled static with the host's gcc into the image cache; their
// sources are part of the image key. initSource is PID 1 (it starts
// kagent and reaps orphans); doexecSource is the execve workload's helper.
var (
	//go:embed init.c.txt
	initSource []byte
	//go:embed doexec.c.txt
	doexecSource []byte
)

// formatVersion changes whenever the image layout changes, so old cached
// images are not reused by a newer kregress.
const formatVersion = "kregress-initramfs/5" // 2: /etc/hosts; 3: uncompressed; 4: C init; 5: init mounts, networks and opens the SSH port

// etcHosts is the guest's /etc/hosts.
const etcHosts = "127.0.0.1\tlocalhost\n::1\tlocalhost\n"

// Spec says what goes into the image.
type Spec struct {
	Agent    string // path of the static kagent binary
	Busybox  string // path of a static busybox
	CacheDir string // images are stored under CacheDir/images/<key>
	// Extra files (static binaries: the kernel's selftests) go into the
	// image at their Name; they are part of the image's key.
	Extra []File
}

// File is one extra file of the image.
type File struct {
	Name string // path inside the image, relative: usr/lib/kselftest/gate/test_core
	Path string // on the host
	// Packed: a benchmark's file (images/bundle), packed with the
	// libraries and loader it needs, so it may be dynamically linked
	// (or not a program at all); Mode is its permission bits.
	Packed bool
	Mode   os.FileMode
}

// Image is a built image and the keys the host needs to talk to it.
type Image struct {
	Key        string
	Path       string // initramfs.cpio
	ClientKey  ssh.Signer
	HostPublic ssh.PublicKey
}

// Build returns the cached image for spec, building it if needed.
func Build(spec Spec) (*Image, error) {
	agent, err := os.ReadFile(spec.Agent)
	if err != nil {
		return nil, fmt.Errorf("initramfs: kagent binary: %w (build it with `make`)", err)
	}
	if err := CheckStatic(spec.Agent, agent); err != nil {
		return nil, err
	}
	bb, err := os.ReadFile(spec.Busybox)
	if err != nil {
		return nil, fmt.Errorf("initramfs: busybox: %w (install the Debian package busybox-static)", err)
	}
	if err := CheckStatic(spec.Busybox, bb); err != nil {
		return nil, fmt.Errorf("%w (install the Debian package busybox-static)", err)
	}
	extra := make([]cpio.Entry, 0, len(spec.Extra))
	for _, f := range spec.Extra {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return nil, fmt.Errorf("initramfs: extra file %s: %w", f.Name, err)
		}
		mode := uint32(0o755)
		if f.Packed {
			mode = uint32(f.Mode.Perm())
		} else if err := CheckStatic(f.Path, data); err != nil {
			return nil, err
		}
		extra = append(extra, cpio.Entry{Name: strings.TrimPrefix(f.Name, "/"), Mode: cpio.TypeRegular | mode, Data: data})
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(formatVersion), initSource, doexecSource, agent, bb} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	for _, e := range extra {
		fmt.Fprintf(h, "%d:%s:%d:", len(e.Name), e.Name, len(e.Data))
		if e.Mode&0o777 != 0o755 {
			fmt.Fprintf(h, "%o:", e.Mode)
		}
		h.Write(e.Data)
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	dir := filepath.Join(spec.CacheDir, "images", key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("initramfs: %w", err)
	}
	// Two kregress processes may build the same image at once: without
	// the lock each would generate its own keys and one would find the
	// guest's host key "changed".
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, fmt.Errorf("initramfs: %w", err)
	}
	defer unlock()
	// The keys live beside the image, which carries the guest's halves:
	// a key that is generated anew (deleted, or never there) makes the
	// cached image unreachable (every cell would fail the host-key
	// check), so the image is rebuilt with it; and a cached image is
	// used only when it holds the keys the host now has.
	hostPEM, host, hostCreated, err := loadOrCreateKey(filepath.Join(dir, "host_key"))
	if err != nil {
		return nil, err
	}
	_, client, clientCreated, err := loadOrCreateKey(filepath.Join(dir, "client_key"))
	if err != nil {
		return nil, err
	}
	authorized := ssh.MarshalAuthorizedKey(client.PublicKey())
	img := &Image{Key: key, Path: filepath.Join(dir, "initramfs.cpio"), ClientKey: client, HostPublic: host.PublicKey()}
	if _, err := os.Stat(img.Path); err == nil && !hostCreated && !clientCreated {
		if CheckImageKeys(img.Path, hostPEM, authorized) == nil {
			return img, nil
		}
		// Built with other keys (a key file was replaced): rebuilt below.
	}
	applets, err := busyboxApplets(spec.Busybox)
	if err != nil {
		return nil, err
	}
	initBin, err := compileStatic(dir, "init", initSource)
	if err != nil {
		return nil, err
	}
	doexec, err := compileStatic(dir, "doexec", doexecSource)
	if err != nil {
		return nil, err
	}
	data, err := archive(agent, bb, initBin, doexec, applets, hostPEM, authorized, extra)
	if err != nil {
		return nil, err
	}
	tmp := img.Path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return nil, fmt.Errorf("initramfs: %w", err)
	}
	if err := os.Rename(tmp, img.Path); err != nil {
		return nil, fmt.Errorf("initramfs: %w", err)
	}
	return img, nil
}

// CheckStatic refuses a dynamically linked binary (data is its content,
// path names it in the error): the image has no libc.
func CheckStatic(path string, data []byte) error {
	if bytes.Contains(data[:min(len(data), 64*1024)], []byte("/lib64/ld-linux")) {
		return fmt.Errorf("initramfs: %s is dynamically linked; the guest image needs static binaries", path)
	}
	return nil
}

func busyboxApplets(bb string) ([]string, error) {
	out, err := exec.Command(bb, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("initramfs: %s --list: %w", bb, err)
	}
	var applets []string
	for _, a := range strings.Fields(string(out)) {
		if a != "busybox" && !strings.Contains(a, "/") {
			applets = append(applets, a)
		}
	}
	sort.Strings(applets)
	return applets, nil
}

// compileStatic builds one of the image's C programs into dir.
func compileStatic(dir, name string, source []byte) ([]byte, error) {
	src := filepath.Join(dir, name+".c")
	out := filepath.Join(dir, name)
	if err := os.WriteFile(src, source, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("gcc", "-static", "-O2", "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initramfs: compile %s (static; needs gcc and libc6-dev: apt-get install build-essential): %v: %s", name, err, b)
	}
	return os.ReadFile(out)
}

func archive(agent, bb, initBin, doexec []byte, applets []string, hostKey, authorized []byte, extra []cpio.Entry) ([]byte, error) {
	var buf bytes.Buffer
	// Uncompressed: under TCG the kernel unpacks a plain cpio faster than
	// it gunzips a smaller one, and QEMU loads the larger file no slower
	// (docs/design-notes.md, "Figures behind choices in the code").
	w := cpio.NewWriter(&buf)
	entries := []cpio.Entry{}
	for _, d := range []string{"bin", "dev", "etc", "etc/kagent", "proc", "root", "sbin", "sys", "tmp"} {
		entries = append(entries, cpio.Entry{Name: d, Mode: cpio.TypeDir | 0o755})
	}
	// The kernel opens /dev/console before anything mounts devtmpfs, and
	// init gives kagent /dev/null as stdin.
	entries = append(entries,
		cpio.Entry{Name: "dev/console", Mode: cpio.TypeChar | 0o600, Major: 5, Minor: 1},
		cpio.Entry{Name: "dev/null", Mode: cpio.TypeChar | 0o666, Major: 1, Minor: 3},
		cpio.Entry{Name: "init", Mode: cpio.TypeRegular | 0o755, Data: initBin},
		cpio.Entry{Name: "bin/busybox", Mode: cpio.TypeRegular | 0o755, Data: bb},
		cpio.Entry{Name: "bin/kagent", Mode: cpio.TypeRegular | 0o755, Data: agent},
		cpio.Entry{Name: "bin/doexec", Mode: cpio.TypeRegular | 0o755, Data: doexec},
		cpio.Entry{Name: "etc/kagent/host_key", Mode: cpio.TypeRegular | 0o600, Data: hostKey},
		cpio.Entry{Name: "etc/kagent/authorized_keys", Mode: cpio.TypeRegular | 0o644, Data: authorized},
		// Static glibc resolves "localhost" from /etc/hosts only: without
		// it test_memcg_sock's client cannot reach its own server.
		cpio.Entry{Name: "etc/hosts", Mode: cpio.TypeRegular | 0o644, Data: []byte(etcHosts)},
	)
	for _, a := range applets {
		entries = append(entries, cpio.Entry{Name: "bin/" + a, Mode: cpio.TypeSymlink | 0o777, Data: []byte("busybox")})
	}
	dirs := map[string]bool{}
	for _, e := range entries {
		if e.Mode&0o170000 == cpio.TypeDir {
			dirs[e.Name] = true
		}
	}
	for _, e := range extra {
		// Parent directories first, outermost first, each once.
		var parents []string
		for d := path.Dir(e.Name); d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			parents = append([]string{d}, parents...)
			dirs[d] = true
		}
		for _, d := range parents {
			entries = append(entries, cpio.Entry{Name: d, Mode: cpio.TypeDir | 0o755})
		}
		entries = append(entries, e)
	}
	for _, e := range entries {
		if err := w.Write(e); err != nil {
			return nil, fmt.Errorf("initramfs: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// The image's paths of the guest's SSH host key and of the host's
// client key.
const (
	imageHostKey    = "etc/kagent/host_key"
	imageAuthorized = "etc/kagent/authorized_keys"
)

// ErrKeyMismatch is wrapped by CheckImageKeys when the image holds other
// keys than the key files.
var ErrKeyMismatch = errors.New("the guest image holds other SSH keys than its key files")

// CheckImageKeys says whether the image at path holds hostPEM as the
// guest's host key and authorized as its authorized_keys.
func CheckImageKeys(path string, hostPEM, authorized []byte) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("initramfs: %w", err)
	}
	entries, err := cpio.Read(data)
	if err != nil {
		return fmt.Errorf("initramfs: %s: %w", path, err)
	}
	var gotHost, gotAuth []byte
	for _, e := range entries {
		switch e.Name {
		case imageHostKey:
			gotHost = e.Data
		case imageAuthorized:
			gotAuth = e.Data
		}
	}
	if !bytes.Equal(gotHost, hostPEM) || !bytes.Equal(gotAuth, authorized) {
		return fmt.Errorf("initramfs: %s: %w", path, ErrKeyMismatch)
	}
	return nil
}

// loadOrCreateKey returns an ed25519 key kept at path (PEM, 0600),
// generating it when the file does not exist (created says so).
func loadOrCreateKey(path string) (pemBytes []byte, key ssh.Signer, created bool, err error) {
	pemBytes, key, err = loadKey(path)
	if !errors.Is(err, os.ErrNotExist) {
		return pemBytes, key, false, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, false, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "kregress")
	if err != nil {
		return nil, nil, false, err
	}
	pemBytes = pem.EncodeToMemory(block)
	if err := os.WriteFile(path+".tmp", pemBytes, 0o600); err != nil {
		return nil, nil, false, fmt.Errorf("initramfs: write key: %w", err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return nil, nil, false, fmt.Errorf("initramfs: write key: %w", err)
	}
	key, err = ssh.ParsePrivateKey(pemBytes)
	return pemBytes, key, true, err
}

// loadKey reads the key at path; a missing file's error wraps
// os.ErrNotExist.
func loadKey(path string) ([]byte, ssh.Signer, error) {
	pemBytes, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("initramfs: read key: %w", err)
	}
	signer, err := ssh.ParsePrivateKey(pemBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("initramfs: key %s: %w", path, err)
	}
	return pemBytes, signer, nil
}

// LoadKeys reopens the keys of an already built image directory (a
// cluster node running one cell). It never generates a key: a new key
// could not match the image, and every cell would then fail the guest's
// host-key check. A missing key, or an image built with other keys, is
// an error that names the file and the fix.
func LoadKeys(dir string) (ssh.Signer, ssh.PublicKey, error) {
	const fix = "run `kregress build` with this cache to rebuild the guest image with new keys"
	hostPath, clientPath := filepath.Join(dir, "host_key"), filepath.Join(dir, "client_key")
	hostPEM, host, err := loadKey(hostPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("initramfs: the guest image's SSH host key %s is missing: %s", hostPath, fix)
	} else if err != nil {
		return nil, nil, err
	}
	_, client, err := loadKey(clientPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("initramfs: the guest image's SSH client key %s is missing: %s", clientPath, fix)
	} else if err != nil {
		return nil, nil, err
	}
	imgPath := filepath.Join(dir, "initramfs.cpio")
	if err := CheckImageKeys(imgPath, hostPEM, ssh.MarshalAuthorizedKey(client.PublicKey())); err != nil {
		return nil, nil, fmt.Errorf("%w: %s", err, fix)
	}
	return client, host.PublicKey(), nil
}
