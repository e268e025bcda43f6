// Package sshdtest runs kagent's real SSH server (guest/sshd) on loopback
// for tests on the host's side of the connection (orchestrator/remote,
// orchestrator/pipeline): a guest without QEMU whose commands really run.
package sshdtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/kregress/kregress/guest/sshd"
)

// Key makes an ed25519 key: its PEM, as sshd.New takes a host key, and
// its signer, as a client or a pinned host key uses it.
func Key(t testing.TB) ([]byte, ssh.Signer) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	p := pem.EncodeToMemory(block)
	s, err := ssh.ParsePrivateKey(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, s
}

// Start serves /bin/sh on loopback to the one client key it authorizes
// until the test ends, and returns its address and its host key.
func Start(t testing.TB, client ssh.Signer) (addr string, host ssh.Signer) {
	t.Helper()
	hostPEM, host := Key(t)
	srv, err := sshd.New(hostPEM, ssh.MarshalAuthorizedKey(client.PublicKey()), "/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go srv.Serve(l)
	return l.Addr().String(), host
}
