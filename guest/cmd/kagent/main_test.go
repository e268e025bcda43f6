package main

import (
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/kregress/kregress/guest/workload"
)

// Init passes the SSH port as an inherited descriptor; boot must serve on
// it, and refuse clearly when the descriptor is something else.
func TestInheritedListener(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	f, err := tcp.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	l, err := inheritedListener(dup(t, f))
	if err != nil {
		t.Fatalf("inheritedListener on a listening socket: %v", err)
	}
	defer l.Close()
	if l.Addr().String() != tcp.Addr().String() {
		t.Errorf("listener on %s, want %s", l.Addr(), tcp.Addr())
	}
	c, err := net.Dial("tcp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := l.Accept()
	if err != nil {
		t.Fatalf("accept on the inherited listener: %v", err)
	}
	a.Close()

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := inheritedListener(dup(t, r)); err == nil || !strings.Contains(err.Error(), "not the listening SSH socket") {
		t.Errorf("inheritedListener on a pipe: %v, want an error naming the SSH socket", err)
	}
}

// dup returns a descriptor of f's file that inheritedListener may close,
// as init's descriptor is kagent's to close, and closes f.
func dup(t *testing.T, f *os.File) uintptr {
	t.Helper()
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return uintptr(fd)
}

// The usage's run lines are the workloads' declarations.
func TestUsageListsEveryWorkloadParameter(t *testing.T) {
	u := usage()
	for _, w := range workload.All() {
		if !strings.Contains(u, "  "+w.Usage()+"\n") {
			t.Errorf("usage lacks %q", w.Usage())
		}
		for _, s := range w.Params() {
			if !strings.Contains(w.Usage(), "-"+s.Name+" ") {
				t.Errorf("%s usage lacks -%s", w.Name, s.Name)
			}
		}
	}
}
