// Package sshd is kagent's SSH server: exec and shell sessions over
// golang.org/x/crypto/ssh, public-key authentication only. Running it inside
// the static kagent binary keeps the image free of dynamic libraries and
// makes its host key the one the image builder generated and the host pins.
package sshd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// Server serves SSH sessions, running commands with Shell.
type Server struct {
	Config *ssh.ServerConfig
	Shell  string
	Log    *log.Logger
	// HandshakeTimeout and MaxConns bound what clients that never log in
	// can hold (zero: the defaults below).
	HandshakeTimeout time.Duration
	MaxConns         int
	// OnLogin, if set, is called after each client has logged in.
	OnLogin func()
}

// New builds a server from a PEM host key and an authorized_keys file.
func New(hostKeyPEM, authorizedKeys []byte, shell string) (*Server, error) {
	signer, err := ssh.ParsePrivateKey(hostKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("sshd: host key: %w", err)
	}
	allowed := map[string]bool{}
	rest := authorizedKeys
	for len(bytes.TrimSpace(rest)) > 0 {
		pub, _, _, r, err := ssh.ParseAuthorizedKey(rest)
		if err != nil {
			return nil, fmt.Errorf("sshd: authorized keys: %w", err)
		}
		allowed[string(pub.Marshal())] = true
		rest = r
	}
	if len(allowed) == 0 {
		return nil, errors.New("sshd: no authorized key: nobody could log in")
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if allowed[string(key.Marshal())] {
				return nil, nil
			}
			return nil, errors.New("key not authorized")
		},
	}
	cfg.AddHostKey(signer)
	return &Server{Config: cfg, Shell: shell, Log: log.New(os.Stderr, "kagent sshd: ", log.LstdFlags)}, nil
}

// The guest's port is forwarded to the host's loopback only, but any
// local user can reach it there: a client that never finishes its
// handshake, or many at once, must not starve the host's own session.
const (
	defaultHandshakeTimeout = 30 * time.Second // far above a key exchange, even under TCG
	defaultMaxConns         = 16
)

// Serve accepts connections until l is closed.
func (s *Server) Serve(l net.Listener) error {
	maxConns := s.MaxConns
	if maxConns <= 0 {
		maxConns = defaultMaxConns
	}
	slots := make(chan struct{}, maxConns)
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		select {
		case slots <- struct{}{}:
		default:
			s.Log.Printf("refusing %s: %d connections open", c.RemoteAddr(), maxConns)
			c.Close()
			continue
		}
		go func() {
			defer func() { <-slots }()
			s.conn(c)
		}()
	}
}

func (s *Server) conn(c net.Conn) {
	timeout := s.HandshakeTimeout
	if timeout <= 0 {
		timeout = defaultHandshakeTimeout
	}
	c.SetDeadline(time.Now().Add(timeout))
	sc, chans, reqs, err := ssh.NewServerConn(c, s.Config)
	c.SetDeadline(time.Time{}) // sessions (workloads) run as long as they need
	if err != nil {
		s.Log.Printf("handshake from %s: %v", c.RemoteAddr(), err)
		c.Close()
		return
	}
	defer sc.Close()
	if s.OnLogin != nil {
		s.OnLogin()
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only session channels")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go s.session(ch, creqs)
	}
}

func (s *Server) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	var env []string
	for req := range reqs {
		switch req.Type {
		case "env":
			var kv struct{ Name, Value string }
			if ssh.Unmarshal(req.Payload, &kv) == nil {
				env = append(env, kv.Name+"="+kv.Value)
			}
			req.Reply(true, nil)
		case "pty-req":
			// No pty: a human gets a plain shell, which busybox sh
			// handles; scripted sessions never ask for one.
			req.Reply(true, nil)
		case "exec", "shell":
			var args []string
			if req.Type == "exec" {
				var p struct{ Command string }
				if err := ssh.Unmarshal(req.Payload, &p); err != nil {
					req.Reply(false, nil)
					return
				}
				args = []string{"-c", p.Command}
			} else {
				args = []string{"-i"}
			}
			req.Reply(true, nil)
			code := s.run(ch, env, args)
			status := make([]byte, 4)
			binary.BigEndian.PutUint32(status, uint32(code))
			ch.SendRequest("exit-status", false, status)
			return
		default:
			req.Reply(false, nil)
		}
	}
}

// run executes the shell with args, wiring the channel to its stdio, and
// returns its exit code. Stdin is copied without waiting for EOF: a client
// that never closes its stdin must not keep the session open.
func (s *Server) run(ch ssh.Channel, env, args []string) int {
	cmd := exec.Command(s.Shell, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = ch
	cmd.Stderr = ch.Stderr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintf(ch.Stderr(), "kagent sshd: %v\n", err)
		return 255
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(ch.Stderr(), "kagent sshd: start %s: %v\n", s.Shell, err)
		return 255
	}
	var once sync.Once
	go func() {
		io.Copy(stdin, ch)
		once.Do(func() { stdin.Close() })
	}()
	err = cmd.Wait()
	once.Do(func() { stdin.Close() })
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return 255
	}
	return 0
}
