package sshd

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"io"
	"log"
	"net"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// newTestServer returns a server listening on loopback (not serving yet)
// and the private key of the one user it authorizes.
func newTestServer(t *testing.T) (*Server, net.Listener, ed25519.PrivateKey) {
	t.Helper()
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(hostPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	userPub, userPriv, _ := ed25519.GenerateKey(rand.Reader)
	sshPub, _ := ssh.NewPublicKey(userPub)
	s, err := New(pem.EncodeToMemory(block), ssh.MarshalAuthorizedKey(sshPub), "/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	s.Log = log.New(io.Discard, "", 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return s, l, userPriv
}

// closedWithin reports whether the server closes c within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 512)
	for {
		if _, err := c.Read(buf); err != nil {
			ne, ok := err.(net.Error)
			return !(ok && ne.Timeout())
		}
	}
}

// A client that connects and never speaks is dropped after the handshake
// timeout instead of holding a goroutine and a socket forever.
func TestSilentClientIsDropped(t *testing.T) {
	s, l, _ := newTestServer(t)
	s.HandshakeTimeout = 200 * time.Millisecond
	go s.Serve(l)
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !closedWithin(c, 5*time.Second) {
		t.Fatal("a silent client was kept past the handshake timeout")
	}
}

// Past MaxConns, new connections are refused at once.
func TestConnectionCap(t *testing.T) {
	s, l, _ := newTestServer(t)
	s.MaxConns = 2
	go s.Serve(l)
	var held []net.Conn
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond) // let Serve take both slots
	extra, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	if !closedWithin(extra, 5*time.Second) {
		t.Fatal("a connection past the cap was accepted")
	}
	if closedWithin(held[0], 200*time.Millisecond) {
		t.Fatal("a connection within the cap was dropped")
	}
}

// OnLogin runs once a client has logged in, and not for one that failed
// to (kagent turns its collector back on at the first login).
func TestOnLogin(t *testing.T) {
	s, l, userPriv := newTestServer(t)
	logins := make(chan struct{}, 4)
	s.OnLogin = func() { logins <- struct{}{} }
	go s.Serve(l)
	dial := func(key ed25519.PrivateKey) error {
		signer, err := ssh.NewSignerFromKey(key)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ssh.Dial("tcp", l.Addr().String(), &ssh.ClientConfig{
			User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
			HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
		})
		if err == nil {
			c.Close()
		}
		return err
	}
	_, strangerPriv, _ := ed25519.GenerateKey(rand.Reader)
	if err := dial(strangerPriv); err == nil {
		t.Fatal("an unauthorized key logged in")
	}
	if err := dial(userPriv); err != nil {
		t.Fatalf("authorized key: %v", err)
	}
	select {
	case <-logins:
	case <-time.After(5 * time.Second):
		t.Fatal("OnLogin was not called after a login")
	}
	select {
	case <-logins:
		t.Fatal("OnLogin was called for the failed login too")
	default:
	}
}
