package remote

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kregress/kregress/guest/sshd"
)

func key(t *testing.T) ([]byte, ssh.Signer) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
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

// startGuest runs kagent's real SSH server on loopback.
func startGuest(t *testing.T, client ssh.Signer) (string, ssh.Signer) {
	hostPEM, host := key(t)
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

func TestRunOverRealSSH(t *testing.T) {
	_, client := key(t)
	addr, host := startGuest(t, client)
	d := SSHDialer{ClientKey: client, HostKey: host.PublicKey(), Timeout: 5 * time.Second}
	ctx := context.Background()
	g, err := WaitReady(ctx, d, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	out, _, err := g.Run(ctx, "echo hello; echo oops >&2")
	if err != nil || strings.TrimSpace(string(out)) != "hello" {
		t.Fatalf("out %q err %v", out, err)
	}
	_, _, err = g.Run(ctx, "echo bad >&2; exit 3")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || !strings.Contains(ee.Stderr, "bad") {
		t.Fatalf("exit error %v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, _, err := g.Run(cctx, "sleep 5"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v", err)
	}
}

func TestHostKeyIsPinned(t *testing.T) {
	_, client := key(t)
	addr, _ := startGuest(t, client)
	_, other := key(t)
	d := SSHDialer{ClientKey: client, HostKey: other.PublicKey(), Timeout: 2 * time.Second}
	if _, err := d.Dial(context.Background(), addr); err == nil || !strings.Contains(err.Error(), "host key") {
		t.Fatalf("dial with the wrong host key: %v", err)
	}
	// And an unknown client key is refused by the guest.
	_, stranger := key(t)
	addr2, host2 := startGuest(t, client)
	d = SSHDialer{ClientKey: stranger, HostKey: host2.PublicKey(), Timeout: 2 * time.Second}
	if _, err := d.Dial(context.Background(), addr2); err == nil {
		t.Fatal("unauthorized client accepted")
	}
}

func TestWaitReadyGivesUpWhenGuestDies(t *testing.T) {
	_, client := key(t)
	gone := make(chan struct{})
	close(gone)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close() // nothing listens: connection refused
	_, err := WaitReady(context.Background(), SSHDialer{ClientKey: client, HostKey: client.PublicKey(), Timeout: time.Second}, addr, gone)
	if err == nil || !strings.Contains(err.Error(), "went away") {
		t.Fatalf("%v", err)
	}
}
