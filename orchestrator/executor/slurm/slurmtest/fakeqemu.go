package slurmtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kregress/kregress/images/cpio"
)

// A fake guest for tests of a cluster's mechanics (where cells run, what
// happens when a node is lost), which need no kernel: the test binary,
// run again as QEMU with FakeQEMUEnv set (its TestMain calls
// ServeFakeQEMU), answers QMP on the -qmp socket as QEMU does, prints a
// console line naming the host it runs on, and powers off after the
// time its -kernel file's name gives ("hold-20s") without ever offering
// SSH: the cell is then stored as boot_failed, a kernel outcome, so
// every cell that ran leaves a result of the kernel's, and only the
// infrastructure's faults leave infra_error.
const FakeQEMUEnv = "KREGRESS_SLURMTEST_FAKE_QEMU"

// consoleFD is the serial console's descriptor in a QEMU that
// orchestrator/vm starts (its first ExtraFiles entry).
const consoleFD = 3

// FakeKernel is the -kernel path that makes the fake guest power off
// after hold.
func FakeKernel(dir string, hold time.Duration) string {
	return filepath.Join(dir, "hold-"+hold.String())
}

// ServeFakeQEMU runs the fake QEMU and exits when FakeQEMUEnv is set;
// otherwise it returns at once. Call it first in TestMain.
func ServeFakeQEMU() {
	if os.Getenv(FakeQEMUEnv) == "" {
		return
	}
	os.Exit(fakeQEMU(os.Args[1:]))
}

func fakeQEMU(args []string) int {
	arg := func(flag string) string {
		if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	hold, err := time.ParseDuration(strings.TrimPrefix(filepath.Base(arg("-kernel")), "hold-"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake qemu: -kernel names no hold time:", arg("-kernel"))
		return 2
	}
	host, _ := os.Hostname()
	console := os.NewFile(consoleFD, "console")
	fmt.Fprintf(console, "Linux version 6.12.0-fake (slurmtest) on %s, powering off in %s\n", host, hold)
	qmp, _, _ := strings.Cut(strings.TrimPrefix(arg("-qmp"), "unix:"), ",")
	l, err := net.Listen("unix", qmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake qemu:", err)
		return 1
	}
	quit := make(chan struct{})
	go serveQMP(l, quit)
	select {
	case <-time.After(hold):
		fmt.Fprintln(console, "reboot: Power down")
	case <-quit:
	}
	return 0
}

// serveQMP answers one QMP client: the greeting, every command with an
// empty return (query-version with a version), and quit by closing quit.
func serveQMP(l net.Listener, quit chan struct{}) {
	c, err := l.Accept()
	if err != nil {
		return
	}
	fmt.Fprintln(c, `{"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 9}, "package": ""}, "capabilities": []}}`)
	dec, enc := json.NewDecoder(c), json.NewEncoder(c)
	for {
		var cmd struct {
			Execute string          `json:"execute"`
			ID      json.RawMessage `json:"id"`
		}
		if err := dec.Decode(&cmd); err != nil {
			return
		}
		reply := map[string]any{"return": map[string]any{}, "id": cmd.ID}
		if cmd.Execute == "query-version" {
			reply["return"] = map[string]any{"qemu": map[string]int{"major": 9, "minor": 2, "micro": 0}, "package": "slurmtest fake"}
		}
		enc.Encode(reply)
		if cmd.Execute == "quit" {
			close(quit)
			return
		}
	}
}

// FakeImage writes, into dir, what a cell needs of a guest image to
// start (initramfs.LoadKeys): a host and a client key, and an image
// holding them. The fake guest never boots it.
func FakeImage(t testing.TB, dir string) {
	t.Helper()
	key := func(name string) ssh.Signer {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		block, err := ssh.MarshalPrivateKey(priv, "kregress")
		if err != nil {
			t.Fatal(err)
		}
		data := pem.EncodeToMemory(block)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := ssh.ParsePrivateKey(data)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	os.MkdirAll(dir, 0o755)
	key("host_key")
	client := key("client_key")
	hostPEM, _ := os.ReadFile(filepath.Join(dir, "host_key"))
	f, err := os.Create(filepath.Join(dir, "initramfs.cpio"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := cpio.NewWriter(f)
	for _, e := range []cpio.Entry{
		{Name: "etc", Mode: cpio.TypeDir | 0o755},
		{Name: "etc/kagent", Mode: cpio.TypeDir | 0o755},
		{Name: "etc/kagent/host_key", Mode: cpio.TypeRegular | 0o600, Data: hostPEM},
		{Name: "etc/kagent/authorized_keys", Mode: cpio.TypeRegular | 0o644, Data: ssh.MarshalAuthorizedKey(client.PublicKey())},
	} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
