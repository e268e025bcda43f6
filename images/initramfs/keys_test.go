package initramfs

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kregress/kregress/guest/sshd"
	"github.com/kregress/kregress/images/cpio"
)

// reachable starts kagent's SSH server with the keys inside the image at
// path (as the guest would) and says whether the host, with its keys,
// gets in: the host-key check every cell makes.
func reachable(t *testing.T, path string, client ssh.Signer, host ssh.PublicKey) error {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := cpio.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	var hostPEM, authorized []byte
	for _, e := range entries {
		switch e.Name {
		case "etc/kagent/host_key":
			hostPEM = e.Data
		case "etc/kagent/authorized_keys":
			authorized = e.Data
		}
	}
	srv, err := sshd.New(hostPEM, authorized, "/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go srv.Serve(l)
	// The host's check (orchestrator/remote's dialer, not imported: images
	// sit below orchestrator): its key, and only the image's host key.
	c, err := ssh.Dial("tcp", l.Addr().String(), &ssh.ClientConfig{
		User:            "root",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(client)},
		HostKeyCallback: ssh.FixedHostKey(host),
		Timeout:         5 * time.Second,
	})
	if err != nil {
		return err
	}
	return c.Close()
}

// A key deleted from the cache (or replaced) is not silently regenerated
// beside an image that holds the old one: Build rebuilds the image with
// the new key, and the guest is reachable again.
func TestMissingOrReplacedKeysRebuildTheImage(t *testing.T) {
	agent := staticBinary(t)
	cache := t.TempDir()
	spec := Spec{Agent: agent, Busybox: "/bin/busybox", CacheDir: cache}
	img, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := reachable(t, img.Path, img.ClientKey, img.HostPublic); err != nil {
		t.Fatalf("fresh image: %v", err)
	}
	dir := filepath.Dir(img.Path)
	replace := func(name string) {
		other := filepath.Join(t.TempDir(), "k")
		if _, _, _, err := loadOrCreateKey(other); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(other)
		os.WriteFile(filepath.Join(dir, name), b, 0o600)
	}
	for _, c := range []struct {
		what   string
		damage func()
	}{
		{"host key deleted", func() { os.Remove(filepath.Join(dir, "host_key")) }},
		{"client key deleted", func() { os.Remove(filepath.Join(dir, "client_key")) }},
		{"both deleted", func() { os.Remove(filepath.Join(dir, "host_key")); os.Remove(filepath.Join(dir, "client_key")) }},
		{"host key replaced", func() { replace("host_key") }},
		{"client key replaced", func() { replace("client_key") }},
	} {
		c.damage()
		img2, err := Build(spec)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if err := reachable(t, img2.Path, img2.ClientKey, img2.HostPublic); err != nil {
			t.Fatalf("%s: the image does not hold the host's keys: %v", c.what, err)
		}
		client, host, err := LoadKeys(dir)
		if err != nil {
			t.Fatalf("%s: LoadKeys after the rebuild: %v", c.what, err)
		}
		if err := reachable(t, img2.Path, client, host); err != nil {
			t.Fatalf("%s: LoadKeys' keys: %v", c.what, err)
		}
	}
}

// A cell on another node (LoadKeys) never generates a key: a missing or
// replaced key is an error naming the file and the fix.
func TestLoadKeysRefusesMissingKeys(t *testing.T) {
	agent := staticBinary(t)
	img, err := Build(Spec{Agent: agent, Busybox: "/bin/busybox", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(img.Path)
	for _, name := range []string{"host_key", "client_key"} {
		path := filepath.Join(dir, name)
		saved, _ := os.ReadFile(path)
		os.Remove(path)
		_, _, err := LoadKeys(dir)
		if err == nil || !strings.Contains(err.Error(), path+" is missing") || !strings.Contains(err.Error(), "kregress build") {
			t.Fatalf("%s missing: %v", name, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("LoadKeys created %s", path)
		}
		os.WriteFile(path, saved, 0o600)
	}
	other := filepath.Join(t.TempDir(), "k")
	loadOrCreateKey(other)
	b, _ := os.ReadFile(other)
	os.WriteFile(filepath.Join(dir, "host_key"), b, 0o600)
	if _, _, err := LoadKeys(dir); !errors.Is(err, ErrKeyMismatch) || !strings.Contains(err.Error(), "kregress build") {
		t.Fatalf("replaced host key: %v", err)
	}
}
