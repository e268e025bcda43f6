// Package remote is the host's SSH client to kagent (x/crypto/ssh). The
// guest's host key is pinned to the one the image builder generated: any
// other key is refused. ClientConfig.Timeout bounds only the TCP connect,
// so the handshake gets its own deadline on the connection.
package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"golang.org/x/crypto/ssh"
)

// Guest is a connected guest.
type Guest interface {
	// Run runs a shell command, returning stdout and stderr; a non-zero
	// exit is an *ExitError.
	Run(ctx context.Context, cmd string) (stdout, stderr []byte, err error)
	Close() error
}

// Dialer connects to guests; SSHDialer is the real one.
type Dialer interface {
	Dial(ctx context.Context, addr string) (Guest, error)
}

// SSHDialer dials kagent with a client key and a pinned host key.
type SSHDialer struct {
	ClientKey ssh.Signer
	HostKey   ssh.PublicKey
	// Timeout bounds connect plus handshake of one attempt.
	Timeout time.Duration
	// StdoutLimit and StderrLimit cap what one command may write on each
	// stream (0: DefaultStdoutLimit, DefaultStderrLimit).
	StdoutLimit, StderrLimit int64
}

// ExitError is a command that ran and exited non-zero.
type ExitError struct {
	Cmd    string
	Code   int
	Stderr string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("guest command %q exited %d: %s", e.Cmd, e.Code, e.Stderr)
}

// Dial makes one connection attempt.
func (d SSHDialer) Dial(ctx context.Context, addr string) (Guest, error) {
	timeout := d.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	cfg := &ssh.ClientConfig{
		User:            "root",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(d.ClientKey)},
		HostKeyCallback: ssh.FixedHostKey(d.HostKey),
		Timeout:         timeout,
	}
	// Plain X25519 first, not x/crypto's default post-quantum hybrid: the
	// link is the host's loopback to a throwaway guest, and under TCG the
	// guest runs the ML-KEM code cold on every boot, which slows the
	// first handshake (docs/design-notes.md, "Fast cells").
	cfg.KeyExchanges = []string{"curve25519-sha256", "mlkem768x25519-sha256"}
	var nd net.Dialer
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := nd.DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(timeout))
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	if err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	g := &sshGuest{client: ssh.NewClient(c, chans, reqs), stdoutLimit: d.StdoutLimit, stderrLimit: d.StderrLimit}
	if g.stdoutLimit <= 0 {
		g.stdoutLimit = DefaultStdoutLimit
	}
	if g.stderrLimit <= 0 {
		g.stderrLimit = DefaultStderrLimit
	}
	return g, nil
}

type sshGuest struct {
	client                   *ssh.Client
	stdoutLimit, stderrLimit int64
}

func (g *sshGuest) Close() error { return g.client.Close() }

func (g *sshGuest) Run(ctx context.Context, cmd string) ([]byte, []byte, error) {
	s, err := g.client.NewSession()
	if err != nil {
		return nil, nil, fmt.Errorf("ssh session: %w", err)
	}
	defer s.Close()
	stdout, stderr := newLimitedBuffer(g.stdoutLimit), newLimitedBuffer(g.stderrLimit)
	s.Stdout, s.Stderr = stdout, stderr
	done := make(chan error, 1)
	go func() { done <- s.Run(cmd) }()
	var over *limitedBuffer
	var overName string
	select {
	case err = <-done:
	case <-stdout.over:
		over, overName = stdout, "stdout"
	case <-stderr.over:
		over, overName = stderr, "stderr"
	case <-ctx.Done():
		// Closing the client unblocks Run; the guest is torn down by
		// the caller anyway.
		g.client.Close()
		<-done
		return stdout.Bytes(), stderr.Bytes(), ctx.Err()
	}
	if over != nil {
		// Closing the session (not the connection: dmesg and poweroff
		// still need it) stops the flood; Run returns once x/crypto/ssh's
		// copy loops have ended, so nothing writes to the buffers after.
		s.Signal(ssh.SIGKILL)
		s.Close()
		select {
		case <-done:
		case <-ctx.Done():
			// A guest that does not answer the close either.
			g.client.Close()
			<-done
		}
		return stdout.Bytes(), stderr.Bytes(), &OutputLimitError{Cmd: cmd, Stream: overName, Limit: over.limit, Received: over.Received()}
	}
	// A stream can also pass its cap in the last write before the
	// command exits.
	for _, b := range []struct {
		name string
		buf  *limitedBuffer
	}{{"stdout", stdout}, {"stderr", stderr}} {
		if b.buf.Received() > b.buf.limit {
			return stdout.Bytes(), stderr.Bytes(), &OutputLimitError{Cmd: cmd, Stream: b.name, Limit: b.buf.limit, Received: b.buf.Received()}
		}
	}
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		return stdout.Bytes(), stderr.Bytes(), &ExitError{Cmd: cmd, Code: ee.ExitStatus(), Stderr: tailString(string(stderr.Bytes()), 2000)}
	}
	return stdout.Bytes(), stderr.Bytes(), err
}

func tailString(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// WaitReady dials until a connection succeeds, ctx ends, or gone closes
// (the guest died: no point in waiting).
func WaitReady(ctx context.Context, d Dialer, addr string, gone <-chan struct{}) (Guest, error) {
	var last error
	for {
		g, err := d.Dial(ctx, addr)
		if err == nil {
			return g, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("guest SSH at %s not ready: %w (last attempt: %v)", addr, ctx.Err(), last)
		case <-gone:
			return nil, fmt.Errorf("guest went away before SSH was ready (last attempt: %v)", last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
