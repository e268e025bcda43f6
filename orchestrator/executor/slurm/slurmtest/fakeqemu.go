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
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/images/cpio"
)

// A fake guest for tests of a cluster's mechanics (where cells run, what
// happens when a node is lost), which need no kernel: the test binary,
// run again as QEMU with FakeQEMUEnv set (its TestMain calls
// ServeFakeQEMU), answers QMP on the -qmp socket as QEMU does, prints a
// console line naming the host it runs on, and serves SSH on the port
// QEMU would forward to the guest, with the image's host key, to the
// image's client key: FakeAgentCmd takes the time its -kernel file's
// name gives ("hold-20s") and prints a valid agent document with one
// metric, dmesg prints a line, `poweroff -f` ends it. The cell is then
// ok, measured as a real one is, and only the infrastructure's faults
// leave infra_error.
const FakeQEMUEnv = "KREGRESS_SLURMTEST_FAKE_QEMU"

// FakeAgentCmd is the agent command (pipeline.Prepared.AgentCmd) the
// fake guest answers with its document.
const FakeAgentCmd = "kagent run fake"

// FakeMetric is the one metric in the fake guest's document.
const FakeMetric = "fake_ops"

// consoleFD is the serial console's descriptor in a QEMU that
// orchestrator/vm starts (its first ExtraFiles entry).
const consoleFD = 3

// FakeKernel is the -kernel path that makes the fake guest's workload
// take hold.
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
	var port int
	if _, fwd, ok := strings.Cut(arg("-netdev"), "hostfwd=tcp:127.0.0.1:"); ok {
		fmt.Sscanf(fwd, "%d-", &port)
	}
	host, _ := os.Hostname()
	console := os.NewFile(consoleFD, "console")
	fmt.Fprintf(console, "Linux version 6.12.0-fake (slurmtest) on %s\n", host)
	qmp, _, _ := strings.Cut(strings.TrimPrefix(arg("-qmp"), "unix:"), ",")
	l, err := net.Listen("unix", qmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake qemu:", err)
		return 1
	}
	quit := make(chan struct{})
	var once sync.Once
	off := func() { once.Do(func() { close(quit) }) }
	go serveQMP(l, off)
	if err := serveSSH(filepath.Dir(arg("-initrd")), port, hold, off); err != nil {
		fmt.Fprintln(os.Stderr, "fake qemu:", err)
		return 1
	}
	// What the image's init prints once its port is open: the cell
	// dials only then (pipeline.WaitAgent).
	fmt.Fprintln(console, "fake init: ssh listening on port 22")
	<-quit
	fmt.Fprintln(console, "reboot: Power down")
	return 0
}

// serveSSH serves the fake guest's SSH on 127.0.0.1:port with the keys
// of the image in imageDir, in the background.
func serveSSH(imageDir string, port int, hold time.Duration, off func()) error {
	hostPEM, err := os.ReadFile(filepath.Join(imageDir, "host_key"))
	if err != nil {
		return err
	}
	hostKey, err := ssh.ParsePrivateKey(hostPEM)
	if err != nil {
		return err
	}
	clientPEM, err := os.ReadFile(filepath.Join(imageDir, "client_key"))
	if err != nil {
		return err
	}
	client, err := ssh.ParsePrivateKey(clientPEM)
	if err != nil {
		return err
	}
	want := client.PublicKey().Marshal()
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) != string(want) {
			return nil, fmt.Errorf("not the image's client key")
		}
		return nil, nil
	}}
	cfg.AddHostKey(hostKey)
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveSSHConn(c, cfg, hold, off)
		}
	}()
	return nil
}

func serveSSHConn(c net.Conn, cfg *ssh.ServerConfig, hold time.Duration, off func()) {
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, reqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go serveSession(ch, reqs, hold, off)
	}
}

// serveSession answers one exec request as the fake guest.
func serveSession(ch ssh.Channel, reqs <-chan *ssh.Request, hold time.Duration, off func()) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			req.Reply(false, nil)
			continue
		}
		var payload struct{ Cmd string }
		ssh.Unmarshal(req.Payload, &payload)
		req.Reply(true, nil)
		status := 0
		switch cmd := payload.Cmd; {
		case strings.HasPrefix(cmd, FakeAgentCmd):
			time.Sleep(hold)
			agentproto.Encode(ch, &agentproto.Document{Schema: agentproto.Schema, AgentVersion: "slurmtest", Workload: "fake",
				Params: map[string]string{}, DurationSec: hold.Seconds(),
				Guest:   agentproto.Guest{KernelRelease: "6.12.0-fake", CPUsOnline: 1, CPUsPossible: 1},
				Metrics: []agentproto.Metric{{Name: FakeMetric, Unit: "ops/s", Direction: agentproto.HigherIsBetter, Value: 100}}})
		case cmd == "dmesg":
			fmt.Fprintln(ch, "[    0.000000] Linux version 6.12.0-fake (slurmtest)")
		case strings.HasPrefix(cmd, "poweroff"):
			defer off()
		default:
			fmt.Fprintf(ch.Stderr(), "fake guest: %s: not found\n", cmd)
			status = 127
		}
		ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(status)}))
		return
	}
}

// serveQMP answers one QMP client: the greeting, every command with an
// empty return (query-version with a version), and quit with off.
func serveQMP(l net.Listener, off func()) {
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
			off()
			return
		}
	}
}

// FakeImage writes, into dir, what a cell needs of a guest image to
// start (initramfs.LoadKeys): a host and a client key, and an image
// holding them. The fake guest serves SSH with those keys and never
// boots the image.
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
