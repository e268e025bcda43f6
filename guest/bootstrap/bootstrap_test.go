package bootstrap

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestRouteMessage(t *testing.T) {
	b := RouteMessage(net.IPv4(10, 0, 2, 2), 7)
	le := binary.NativeEndian
	if int(le.Uint32(b)) != len(b) || le.Uint16(b[4:]) != unix.RTM_NEWROUTE || le.Uint32(b[8:]) != 7 {
		t.Fatalf("header % x", b[:16])
	}
	if flags := le.Uint16(b[6:]); flags&unix.NLM_F_ACK == 0 || flags&unix.NLM_F_CREATE == 0 {
		t.Fatalf("flags %#x: the kernel must create the route and acknowledge it", flags)
	}
	rt := b[unix.SizeofNlMsghdr:]
	if rt[0] != unix.AF_INET || rt[1] != 0 || rt[4] != unix.RT_TABLE_MAIN || rt[7] != unix.RTN_UNICAST {
		t.Fatalf("rtmsg % x", rt[:unix.SizeofRtMsg])
	}
	a := rt[unix.SizeofRtMsg:]
	if le.Uint16(a[2:]) != unix.RTA_GATEWAY || !net.IP(a[unix.SizeofRtAttr:]).Equal(net.IPv4(10, 0, 2, 2)) {
		t.Fatalf("gateway attribute % x", a)
	}
}

func TestParseAck(t *testing.T) {
	reply := func(typ uint16, errno int32) []byte {
		b := make([]byte, unix.SizeofNlMsghdr+4)
		binary.NativeEndian.PutUint16(b[4:], typ)
		binary.NativeEndian.PutUint32(b[unix.SizeofNlMsghdr:], uint32(errno))
		return b
	}
	if err := parseAck(reply(unix.NLMSG_ERROR, 0)); err != nil {
		t.Fatalf("acknowledgement read as %v", err)
	}
	if err := parseAck(reply(unix.NLMSG_ERROR, -int32(unix.EEXIST))); !errors.Is(err, unix.EEXIST) {
		t.Fatalf("EEXIST read as %v", err)
	}
	if err := parseAck(reply(unix.RTM_NEWROUTE, 0)); err == nil {
		t.Fatal("a reply that is no acknowledgement accepted")
	}
	if err := parseAck([]byte{1, 2}); err == nil {
		t.Fatal("a short reply accepted")
	}
}

func TestBanner(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sys/devices/system/cpu"), 0o755)
	os.WriteFile(filepath.Join(dir, "uptime"), []byte("1.54 2.90\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sys/devices/system/cpu/online"), []byte("0-1\n"), 0o644)
	if got, want := Banner(dir, filepath.Join(dir, "sys")), "kregress-init: up 1.54s cpus=0-1"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
