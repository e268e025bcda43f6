// Package bootstrap brings a kregress guest up from the kernel's handover:
// the mounts the workloads need and the user-mode network QEMU offers. It
// does in one process what a shell script did with a dozen busybox
// programs, each of which costs a fork and exec (tens of milliseconds
// under TCG) on every boot of every cell.
package bootstrap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Mount is one filesystem to mount.
type Mount struct{ Source, Target, FSType string }

// Mounts are what the workloads and selftests need, in order.
var Mounts = []Mount{
	{"proc", "/proc", "proc"},
	{"sysfs", "/sys", "sysfs"},
	// CONFIG_DEVTMPFS_MOUNT does not apply to an initramfs.
	{"devtmpfs", "/dev", "devtmpfs"},
	{"devpts", "/dev/pts", "devpts"},
	{"tmpfs", "/tmp", "tmpfs"},
	{"cgroup2", "/sys/fs/cgroup", "cgroup2"},
	{"tracefs", "/sys/kernel/tracing", "tracefs"},
}

// MountAll mounts Mounts, creating missing mount points.
func MountAll() error {
	for _, m := range Mounts {
		if err := os.MkdirAll(m.Target, 0o755); err != nil {
			return fmt.Errorf("bootstrap: mkdir %s: %w", m.Target, err)
		}
		if err := unix.Mount(m.Source, m.Target, m.FSType, 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
			return fmt.Errorf("bootstrap: mount %s on %s: %w", m.FSType, m.Target, err)
		}
	}
	return nil
}

// Network is QEMU user networking's fixed layout.
type Network struct {
	Interface string
	Address   net.IP
	Mask      net.IPMask
	Gateway   net.IP
}

// QEMUUser is the layout of QEMU's -netdev user: the guest is always
// 10.0.2.15/24 behind the gateway 10.0.2.2.
var QEMUUser = Network{Interface: "eth0", Address: net.IPv4(10, 0, 2, 15), Mask: net.CIDRMask(24, 32), Gateway: net.IPv4(10, 0, 2, 2)}

// Up brings lo and n's interface up, gives it its address and adds the
// default route.
func (n Network) Up() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bootstrap: socket: %w", err)
	}
	defer unix.Close(fd)
	for _, ifname := range []string{"lo", n.Interface} {
		if err := linkUp(fd, ifname); err != nil {
			return err
		}
	}
	for _, set := range []struct {
		req  uint
		ip   net.IP
		what string
	}{{unix.SIOCSIFADDR, n.Address, "address"}, {unix.SIOCSIFNETMASK, net.IP(n.Mask), "netmask"}} {
		ifr, err := unix.NewIfreq(n.Interface)
		if err != nil {
			return fmt.Errorf("bootstrap: %s: %w", n.Interface, err)
		}
		if err := ifr.SetInet4Addr(set.ip.To4()); err != nil {
			return fmt.Errorf("bootstrap: %s %s: %w", n.Interface, set.what, err)
		}
		if err := unix.IoctlIfreq(fd, set.req, ifr); err != nil {
			return fmt.Errorf("bootstrap: set %s %s %s: %w", n.Interface, set.what, set.ip, err)
		}
	}
	return addDefaultRoute(n.Gateway)
}

func linkUp(fd int, ifname string) error {
	ifr, err := unix.NewIfreq(ifname)
	if err != nil {
		return fmt.Errorf("bootstrap: %s: %w", ifname, err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bootstrap: %s flags (is the interface there?): %w", ifname, err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bootstrap: %s up: %w", ifname, err)
	}
	return nil
}

// addDefaultRoute sends one RTM_NEWROUTE (0.0.0.0/0 via gw) over netlink
// and waits for the kernel's acknowledgement.
func addDefaultRoute(gw net.IP) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("bootstrap: netlink: %w", err)
	}
	defer unix.Close(fd)
	msg := RouteMessage(gw, 1)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("bootstrap: send route: %w", err)
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return fmt.Errorf("bootstrap: route reply: %w", err)
	}
	return parseAck(buf[:n])
}

// RouteMessage is the netlink request adding the IPv4 default route via
// gw: nlmsghdr, rtmsg, one RTA_GATEWAY attribute.
func RouteMessage(gw net.IP, seq uint32) []byte {
	const attrLen = unix.SizeofRtAttr + 4
	total := unix.SizeofNlMsghdr + unix.SizeofRtMsg + attrLen
	b := make([]byte, total)
	le := binary.NativeEndian
	le.PutUint32(b[0:], uint32(total))
	le.PutUint16(b[4:], unix.RTM_NEWROUTE)
	le.PutUint16(b[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	le.PutUint32(b[8:], seq)
	rt := b[unix.SizeofNlMsghdr:]
	rt[0] = unix.AF_INET           // family
	rt[1] = 0                      // dst_len: the default route
	rt[4] = unix.RT_TABLE_MAIN     // table
	rt[5] = unix.RTPROT_BOOT       // protocol
	rt[6] = unix.RT_SCOPE_UNIVERSE // scope
	rt[7] = unix.RTN_UNICAST       // type
	a := rt[unix.SizeofRtMsg:]
	le.PutUint16(a[0:], attrLen)
	le.PutUint16(a[2:], unix.RTA_GATEWAY)
	copy(a[unix.SizeofRtAttr:], gw.To4())
	return b
}

// parseAck reads the kernel's answer: an NLMSG_ERROR whose error is 0 is
// the acknowledgement.
func parseAck(b []byte) error {
	if len(b) < unix.SizeofNlMsghdr+4 {
		return fmt.Errorf("bootstrap: route reply of %d bytes", len(b))
	}
	if typ := binary.NativeEndian.Uint16(b[4:]); typ != unix.NLMSG_ERROR {
		return fmt.Errorf("bootstrap: route reply of type %d, want an acknowledgement", typ)
	}
	if errno := int32(binary.NativeEndian.Uint32(b[unix.SizeofNlMsghdr:])); errno != 0 {
		return fmt.Errorf("bootstrap: add default route: %w", unix.Errno(-errno))
	}
	return nil
}

// Banner is the line the host waits for once userspace runs (the
// accelerator probe's vm.InitMarker): uptime and online CPUs.
func Banner(proc, sys string) string {
	up, _ := os.ReadFile(proc + "/uptime")
	online, _ := os.ReadFile(sys + "/devices/system/cpu/online")
	f := strings.Fields(string(up))
	if len(f) == 0 {
		f = []string{"?"}
	}
	return fmt.Sprintf("kregress-init: up %ss cpus=%s", f[0], strings.TrimSpace(string(online)))
}
