// Package vm starts QEMU guests for kregress: direct kernel boot of a
// bzImage and an initramfs, user networking with the guest's SSH port
// forwarded to 127.0.0.1 only, the serial console written to a file, and
// QMP over a unix socket driven through go-qemu. A Machine reports when its
// guest panicked (pvpanic's GUEST_PANICKED event, or the console) or went
// away, so the pipeline never waits on a dead guest.
package vm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/digitalocean/go-qemu/qemu"

	"github.com/kregress/kregress/internal/logread"
	"github.com/kregress/kregress/orchestrator/vm/qmpsock"
)

// Spec is one guest to boot.
type Spec struct {
	QEMU     string // binary, default qemu-system-x86_64
	Kernel   string
	Initrd   string
	Cmdline  string // appended to the base cmdline
	CPUs     int
	MaxCPUs  int // possible CPUs (hotplug slots); 0 = CPUs
	MemoryMB int
	Accel    string // "kvm" or "tcg"
	Dir      string // console.log goes here
	// QMPDir holds qmp.sock: a private (0700) directory, because anyone
	// who can connect to QMP controls the guest. Boot makes one in
	// $TMPDIR (short paths: a socket's path has a 108-byte limit) when
	// it is empty.
	QMPDir  string
	SSHPort int // host port on 127.0.0.1; 0 picks a free one
	// HostCPUs pins QEMU (its vCPU threads and all) to these host cores
	// with taskset, so guests run side by side do not share cores;
	// empty: the scheduler places it.
	HostCPUs []int
	// ICount runs TCG with an instruction-counting clock: 2^ICountShift
	// ns of guest time per instruction, one host thread for every vCPU
	// (QEMU's icount cannot run multi-threaded TCG), and no sleeping (an
	// idle guest's clock jumps to its next timer), so guest time depends
	// on what the guest executed, not on how fast the host ran it.
	// Ignored under KVM.
	ICount      bool
	ICountShift int
}

// MachineType is the QEMU machine and firmware every guest boots on
// (provenance): q35 with QEMU's default firmware, SeaBIOS, loading the
// kernel directly. qboot boots faster and was not adopted: the panic and
// hang paths would need re-proving under it for a small share of the
// boot.
//
// Without the i8042 PS/2 controller (machine property i8042=off): with
// it, the kernel's serio thread probes the keyboard and the mouse right
// after "Run /init", beside kagent's start; without it the driver finds
// no controller at probe time and nothing runs after /init (the bench
// figures: docs/design-notes.md, "Figures behind choices in the code"). The kernel under test is the
// same; it only sees one device fewer, which no workload uses.
const MachineType = "q35 (i8042=off), SeaBIOS, direct kernel boot"

// machineArg is QEMU's -machine argument for MachineType.
const machineArg = "q35,i8042=off"

// HostClock is Spec.Clock of a guest that keeps real time.
const HostClock = "host"

// Clock names the guest clock s runs with, as provenance records it.
func (s Spec) Clock() string {
	if !s.ICount || s.Accel == "kvm" {
		return HostClock
	}
	return fmt.Sprintf("icount shift=%d", s.ICountShift)
}

// command is the program and arguments that start QEMU for s.
func (s Spec) command() (string, []string) {
	if len(s.HostCPUs) == 0 {
		return s.QEMU, s.Args()
	}
	cores := make([]string, len(s.HostCPUs))
	for i, c := range s.HostCPUs {
		cores[i] = strconv.Itoa(c)
	}
	return "taskset", append([]string{"-c", strings.Join(cores, ","), s.QEMU}, s.Args()...)
}

// BaseCmdline is what every guest boots with: console on the serial port,
// panic reboots at once (and -no-reboot turns that into QEMU exiting).
const BaseCmdline = "console=ttyS0 panic=-1 oops=panic rdinit=/init"

// Cmdline is the full kernel command line of s.
func (s Spec) FullCmdline() string {
	return strings.TrimSpace(BaseCmdline + " " + s.Cmdline)
}

// Args returns QEMU's arguments for s.
func (s Spec) Args() []string {
	accel := "tcg,thread=multi"
	cpuModel := "max"
	var icount []string
	switch {
	case s.Accel == "kvm":
		accel = "kvm"
		cpuModel = "host"
	case s.ICount:
		accel = "tcg,thread=single"
		icount = []string{"-icount", fmt.Sprintf("shift=%d,sleep=off", s.ICountShift)}
	}
	smp := fmt.Sprintf("%d", s.CPUs)
	if s.MaxCPUs > s.CPUs {
		smp += fmt.Sprintf(",maxcpus=%d", s.MaxCPUs)
	}
	return append([]string{
		"-machine", machineArg,
		"-accel", accel,
		"-cpu", cpuModel,
		"-smp", smp,
		"-m", fmt.Sprintf("%d", s.MemoryMB),
		"-kernel", s.Kernel,
		"-initrd", s.Initrd,
		"-append", s.FullCmdline(),
		"-no-reboot",
		"-action", "panic=shutdown",
		"-device", "pvpanic",
		"-netdev", fmt.Sprintf("user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:%d-:22", s.SSHPort),
		"-device", "virtio-net-pci,netdev=n0",
		// The serial port goes to a pipe (fd 3 of QEMU), which
		// consoleLog copies to console.log within its bounds: with
		// "file:console.log" QEMU would let a guest fill the disk.
		"-serial", "file:/dev/fd/" + strconv.Itoa(consoleFD),
		"-qmp", "unix:" + s.qmpSocket() + ",server=on,wait=off",
		"-display", "none",
		"-monitor", "none",
		"-nodefaults",
		// The cell's directory names the guest, so ps (and the tests
		// that kill a cell's QEMU) can tell which cell a QEMU is: the
		// console no longer names a file there. QEMU's option syntax
		// doubles a comma.
		"-name", "guest=kregress:" + strings.ReplaceAll(s.Dir, ",", ",,"),
	}, icount...)
}

// consoleFD is the descriptor QEMU writes the serial console to: the
// first of exec.Cmd's ExtraFiles.
const consoleFD = 3

// Machine is a booted guest, as the pipeline sees it. The QEMU
// implementation is *Instance; tests use a fake.
type Machine interface {
	// SSHAddr is host:port of the guest's SSH server.
	SSHAddr() string
	// Done is closed when the guest is gone (QEMU exited).
	Done() <-chan struct{}
	// Panicked reports whether the guest kernel panicked.
	Panicked() bool
	// ConsoleTail returns the last n lines of the serial console.
	ConsoleTail(n int) string
	// ConsolePath is the console log file.
	ConsolePath() string
	// Shutdown stops the guest: quit over QMP, then kill. It always
	// returns once QEMU is gone.
	Shutdown(ctx context.Context) error
	// Info is what the run's provenance records about the VM.
	Info() Info
}

// Info is the VM side of a run's provenance.
type Info struct {
	QEMUVersion string
	Accel       string
	Clock       string // "host" or "icount shift=N"
	Machine     string // MachineType
	Cmdline     string
	CPUs        int
	MaxCPUs     int
	MemoryMB    int
	Args        []string
}

// Booter boots machines; QEMUBooter is the real one.
type Booter interface {
	Boot(ctx context.Context, s Spec) (Machine, error)
}

// QEMUBooter boots real QEMU guests.
type QEMUBooter struct{}

// Instance is a running QEMU process.
type Instance struct {
	spec     Spec
	cmd      *exec.Cmd
	domain   *qemu.Domain
	mon      *qmpsock.Monitor
	version  string
	done     chan struct{}
	exitErr  error
	mu       sync.Mutex
	panicked bool
	stderr   bytes.Buffer
}

// FreePort asks the kernel for a free loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Boot starts QEMU and connects QMP. It returns once QEMU runs; waiting
// for the guest's SSH server is the caller's job.
func (QEMUBooter) Boot(ctx context.Context, s Spec) (Machine, error) { return Start(ctx, s) }

// Start is Boot returning the concrete type. A free port is picked by
// binding and releasing it, so another process can take it before QEMU
// does: when QEMU then fails to set up the forwarding, Start retries on a
// new port.
func Start(ctx context.Context, s Spec) (*Instance, error) {
	pick := s.SSHPort == 0
	for attempt := 1; ; attempt++ {
		in, err := start(ctx, s)
		if err == nil || !pick || attempt == 3 || !strings.Contains(err.Error(), "host forwarding") {
			return in, err
		}
	}
}

func start(ctx context.Context, s Spec) (*Instance, error) {
	if s.QEMU == "" {
		s.QEMU = "qemu-system-x86_64"
	}
	if _, err := exec.LookPath(s.QEMU); err != nil {
		return nil, fmt.Errorf("vm: %s not found: apt-get install qemu-system-x86", s.QEMU)
	}
	if s.SSHPort == 0 {
		p, err := FreePort()
		if err != nil {
			return nil, fmt.Errorf("vm: pick a port: %w", err)
		}
		s.SSHPort = p
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	ownQMPDir := s.QMPDir == ""
	if ownQMPDir {
		d, err := os.MkdirTemp("", "kregress-qmp-") // mode 0700
		if err != nil {
			return nil, fmt.Errorf("vm: QMP directory: %w", err)
		}
		s.QMPDir = d
	} else if err := os.MkdirAll(s.QMPDir, 0o700); err != nil {
		return nil, fmt.Errorf("vm: QMP directory: %w", err)
	}
	os.Remove(s.qmpSocket())
	in := &Instance{spec: s, done: make(chan struct{})}
	console, err := newConsoleCopy(in.ConsolePath(), ConsoleHeadBytes, ConsoleTailBytes)
	if err != nil {
		return nil, err
	}
	// Not CommandContext: the caller decides when the guest dies, via
	// Shutdown, so that a cancelled run still records the console.
	name, args := s.command()
	in.cmd = exec.Command(name, args...)
	in.cmd.Stderr = &in.stderr
	in.cmd.Stdout = &in.stderr
	// Own process group: a Ctrl-C on the terminal reaches kregress, which
	// then shuts the guest down in order instead of QEMU dying mid-write.
	// Pdeathsig: if kregress itself is killed (kill -9), QEMU dies with it
	// rather than running on as an orphan.
	in.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	in.cmd.ExtraFiles = []*os.File{console.w} // consoleFD
	if err := in.cmd.Start(); err != nil {
		console.abort()
		if ownQMPDir {
			os.RemoveAll(s.QMPDir)
		}
		return nil, fmt.Errorf("vm: start qemu: %w", err)
	}
	console.started()
	go func() {
		in.exitErr = in.cmd.Wait()
		// Done means the console is complete: readers search it for the
		// panic and the kernel's reports.
		console.wait(5 * time.Second)
		if ownQMPDir {
			os.RemoveAll(s.QMPDir)
		}
		close(in.done)
	}()
	if err := in.connectQMP(ctx); err != nil {
		in.kill()
		return nil, err
	}
	return in, nil
}

// retryUntil calls try every 20 ms until it succeeds. QEMU exiting (during
// says when, in the error), ctx ending or deadline passing stop it first;
// past the deadline it returns timeout of try's last error.
func (in *Instance) retryUntil(ctx context.Context, deadline time.Time, during string, try func() error, timeout func(last error) error) error {
	for {
		err := try()
		if err == nil {
			return nil
		}
		select {
		case <-in.done:
			return fmt.Errorf("vm: qemu exited %s (%v): %s", during, in.exitErr, strings.TrimSpace(in.stderr.String()))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return timeout(err)
		}
	}
}

func (in *Instance) connectQMP(ctx context.Context) error {
	sock := in.spec.qmpSocket()
	deadline := time.Now().Add(30 * time.Second)
	appeared := func() error { _, err := os.Stat(sock); return err }
	if err := in.retryUntil(ctx, deadline, "before its QMP socket appeared", appeared, func(error) error {
		return errors.New("vm: qemu's QMP socket did not appear within 30s")
	}); err != nil {
		return err
	}
	in.mon = qmpsock.New(sock, 10*time.Second)
	// The socket's file exists from bind(), before QEMU listens on it,
	// and a QEMU that fails later in its setup (a host forwarding port
	// taken by a guest started at the same moment) removes nothing: a
	// refused connection is retried until QEMU listens or is gone.
	if err := in.retryUntil(ctx, deadline, "while its QMP socket was being connected", in.mon.Connect, func(last error) error {
		return last
	}); err != nil {
		return err
	}
	d, err := qemu.NewDomain(in.mon, filepath.Base(in.spec.Dir))
	if err != nil {
		return fmt.Errorf("vm: qmp domain: %w", err)
	}
	in.domain = d
	if v, err := d.Version(); err == nil {
		in.version = v
	}
	events, stop, err := d.Events()
	if err != nil {
		return fmt.Errorf("vm: qmp events: %w", err)
	}
	go func() {
		// Always drain: go-qemu's broadcast blocks on a listener that
		// stops reading.
		defer close(stop)
		for ev := range events {
			if ev.Event == "GUEST_PANICKED" {
				in.mu.Lock()
				in.panicked = true
				in.mu.Unlock()
			}
		}
	}()
	return nil
}

func (s Spec) qmpSocket() string {
	dir := s.QMPDir
	if dir == "" {
		dir = s.Dir
	}
	return filepath.Join(dir, "qmp.sock")
}

// SSHAddr implements Machine.
func (in *Instance) SSHAddr() string { return fmt.Sprintf("127.0.0.1:%d", in.spec.SSHPort) }

// Done implements Machine.
func (in *Instance) Done() <-chan struct{} { return in.done }

// ConsolePath implements Machine.
func (in *Instance) ConsolePath() string { return filepath.Join(in.spec.Dir, "console.log") }

// Panicked implements Machine: pvpanic's event, or the console's words.
func (in *Instance) Panicked() bool {
	in.mu.Lock()
	p := in.panicked
	in.mu.Unlock()
	if p {
		return true
	}
	// The panic line is near the end (nothing runs after it); the guest
	// may have flooded the console before it.
	data, _ := logread.Tail(in.ConsolePath(), consoleTailBytes)
	return bytes.Contains(data, []byte("Kernel panic - not syncing"))
}

// consoleTailBytes is how much of the console's end is read for its tail
// and the panic line: a guest can write gigabytes to its console.
const consoleTailBytes = 1 << 20

// ConsoleTail implements Machine.
func (in *Instance) ConsoleTail(n int) string { return ConsoleTail(in.ConsolePath(), n) }

// ConsoleTail returns the last n lines of a console log.
func ConsoleTail(path string, n int) string {
	data, err := logread.Tail(path, consoleTailBytes)
	if err != nil {
		return fmt.Sprintf("(no console: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Info implements Machine.
func (in *Instance) Info() Info {
	maxc := in.spec.MaxCPUs
	if maxc < in.spec.CPUs {
		maxc = in.spec.CPUs
	}
	return Info{
		QEMUVersion: in.version, Accel: in.spec.Accel, Clock: in.spec.Clock(), Machine: MachineType, Cmdline: in.spec.FullCmdline(),
		CPUs: in.spec.CPUs, MaxCPUs: maxc, MemoryMB: in.spec.MemoryMB,
		Args: append([]string{in.spec.QEMU}, in.spec.Args()...),
	}
}

// Shutdown implements Machine: the guest was powered off by the agent, or
// is told to quit over QMP; after a grace period QEMU is killed.
func (in *Instance) Shutdown(ctx context.Context) error {
	select {
	case <-in.done:
	default:
		if in.domain != nil {
			in.domain.Run(qmpCommand("quit"))
		}
		select {
		case <-in.done:
		case <-time.After(5 * time.Second):
			in.kill()
		case <-ctx.Done():
			in.kill()
		}
	}
	if in.mon != nil {
		in.mon.Disconnect()
	}
	return nil
}

func (in *Instance) kill() {
	if in.cmd.Process != nil {
		syscall.Kill(-in.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-in.done
}

// WaitExit waits for QEMU to exit by itself (the guest powered off).
func (in *Instance) WaitExit(timeout time.Duration) bool {
	select {
	case <-in.done:
		return true
	case <-time.After(timeout):
		return false
	}
}
