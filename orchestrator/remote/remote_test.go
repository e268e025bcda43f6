package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/sshd/sshdtest"
)

func TestRunOverRealSSH(t *testing.T) {
	_, client := sshdtest.Key(t)
	addr, host := sshdtest.Start(t, client)
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
	_, client := sshdtest.Key(t)
	addr, _ := sshdtest.Start(t, client)
	_, other := sshdtest.Key(t)
	d := SSHDialer{ClientKey: client, HostKey: other.PublicKey(), Timeout: 2 * time.Second}
	if _, err := d.Dial(context.Background(), addr); err == nil || !strings.Contains(err.Error(), "host key") {
		t.Fatalf("dial with the wrong host key: %v", err)
	}
	// And an unknown client key is refused by the guest.
	_, stranger := sshdtest.Key(t)
	addr2, host2 := sshdtest.Start(t, client)
	d = SSHDialer{ClientKey: stranger, HostKey: host2.PublicKey(), Timeout: 2 * time.Second}
	if _, err := d.Dial(context.Background(), addr2); err == nil {
		t.Fatal("unauthorized client accepted")
	}
}

func TestWaitReadyGivesUpWhenGuestDies(t *testing.T) {
	_, client := sshdtest.Key(t)
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

// A guest that floods a stream far past its cap: the host keeps at most
// the cap, closes the session and says which stream and how much.
func TestOutputIsCapped(t *testing.T) {
	_, client := sshdtest.Key(t)
	addr, host := sshdtest.Start(t, client)
	const limit = 64 << 10
	d := SSHDialer{ClientKey: client, HostKey: host.PublicKey(), Timeout: 5 * time.Second, StdoutLimit: limit, StderrLimit: limit}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := WaitReady(ctx, d, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, c := range []struct{ stream, cmd string }{
		// 1 GiB: were it buffered, the test's heap would show it.
		{"stdout", "head -c 1073741824 /dev/zero"},
		{"stderr", "head -c 1073741824 /dev/zero >&2"},
	} {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		stdout, stderr, err := g.Run(ctx, c.cmd)
		var le *OutputLimitError
		if !errors.As(err, &le) || le.Stream != c.stream || le.Limit != limit || le.Received <= limit {
			t.Fatalf("%s flood: err %v", c.stream, err)
		}
		if !strings.Contains(err.Error(), c.stream) || !strings.Contains(err.Error(), "64 KiB") {
			t.Fatalf("error does not name the stream and the cap: %v", err)
		}
		if len(stdout) > limit || len(stderr) > limit || cap(stdout) > 2*limit || cap(stderr) > 2*limit {
			t.Fatalf("buffers not bounded: stdout %d/%d stderr %d/%d", len(stdout), cap(stdout), len(stderr), cap(stderr))
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		// The session was closed long before the guest's 1 GiB.
		if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
			t.Fatalf("%s flood allocated %d MB on the host", c.stream, got>>20)
		}
	}
	// The connection still serves the next command (dmesg, poweroff).
	out, _, err := g.Run(ctx, "echo still here")
	if err != nil || strings.TrimSpace(string(out)) != "still here" {
		t.Fatalf("after a flood: %q %v", out, err)
	}
	// Exactly at the cap is fine.
	out, _, err = g.Run(ctx, fmt.Sprintf("head -c %d /dev/zero", limit))
	if err != nil || len(out) != limit {
		t.Fatalf("output of exactly the cap: %d bytes, %v", len(out), err)
	}
}

// A guest that accepts the connection and never speaks SSH: one dial
// attempt ends at its Timeout (the handshake has its own deadline), and
// WaitReady gives up when its context ends, saying why.
func TestSilentGuest(t *testing.T) {
	_, client := sshdtest.Key(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent
		}
	}()
	d := SSHDialer{ClientKey: client, HostKey: client.PublicKey(), Timeout: 200 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, err := d.Dial(context.Background(), l.Addr().String())
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Fatalf("dial of a silent guest: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("dial of a silent guest never returned")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	if _, err := WaitReady(ctx, d, l.Addr().String(), nil); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("WaitReady on a silent guest: %v", err)
	}
}
