package vm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The fake QEMU is this test binary run again with fakeQEMUEnv set to a
// mode: it takes QEMU's arguments, writes the serial console to fd 3 and
// answers QMP on the -qmp socket as QEMU does, so Start, Panicked,
// Shutdown and the console bounds are tested on a real child process
// without QEMU or a kernel.
const (
	fakeQEMUEnv = "KREGRESS_FAKE_QEMU"
	// fakeQEMULog, if set, is a file the fake appends its pid to on
	// every start.
	fakeQEMULog = "KREGRESS_FAKE_QEMU_LOG"
)

// The fake's modes.
const (
	fakeOK        = "ok"         // boots, answers QMP, exits on quit
	fakePanic     = "panic"      // as ok, then reports GUEST_PANICKED (and prints nothing)
	fakeDeaf      = "deaf"       // as ok, but ignores quit
	fakeNoForward = "no-forward" // fails as QEMU does when its SSH port is taken
	fakeMute      = "mute"       // never opens its QMP socket
	fakeFlood     = "flood"      // prints far over the console's cap, then as ok
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeQEMUEnv); mode != "" {
		os.Exit(fakeQEMU(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeQEMU(mode string, args []string) int {
	if log := os.Getenv(fakeQEMULog); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	console := os.NewFile(consoleFD, "console")
	fmt.Fprintln(console, "Linux version 6.12.0-fake")
	switch mode {
	case fakeNoForward:
		fmt.Fprintln(os.Stderr, "qemu-system-x86_64: -netdev user: could not set up host forwarding rule 'tcp:127.0.0.1:1-:22'")
		return 1
	case fakeMute:
		time.Sleep(time.Minute)
		return 0
	case fakeFlood:
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for range (ConsoleHeadBytes + 3*ConsoleTailBytes) / len(line) {
			console.Write(line)
		}
		fmt.Fprintln(console, "the end of the flood")
	}
	i := slices.Index(args, "-qmp")
	if i < 0 {
		fmt.Fprintln(os.Stderr, "fake qemu: no -qmp")
		return 2
	}
	path, _, _ := strings.Cut(strings.TrimPrefix(args[i+1], "unix:"), ",")
	l, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake qemu:", err)
		return 1
	}
	c, err := l.Accept()
	if err != nil {
		return 1
	}
	fmt.Fprintln(c, `{"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 9}, "package": ""}, "capabilities": []}}`)
	dec := json.NewDecoder(c)
	var mu sync.Mutex
	encoder := json.NewEncoder(c)
	send := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		encoder.Encode(v)
	}
	for {
		var cmd struct {
			Execute string          `json:"execute"`
			ID      json.RawMessage `json:"id"`
		}
		if err := dec.Decode(&cmd); err != nil {
			return 0
		}
		reply := map[string]any{"return": map[string]any{}, "id": cmd.ID}
		if cmd.Execute == "query-version" {
			reply["return"] = map[string]any{"qemu": map[string]int{"major": 9, "minor": 2, "micro": 0}, "package": "fake"}
		}
		send(reply)
		switch {
		case cmd.Execute == "qmp_capabilities" && mode == fakePanic:
			// Again and again: go-qemu broadcasts an event only to the
			// listeners it has, and Start attaches its listener after a
			// few commands (a real guest panics seconds after that).
			go func() {
				for {
					send(map[string]any{"event": "GUEST_PANICKED", "data": map[string]any{"action": "pause"},
						"timestamp": map[string]int{"seconds": 1, "microseconds": 0}})
					time.Sleep(20 * time.Millisecond)
				}
			}()
		case cmd.Execute == "quit" && mode != fakeDeaf:
			return 0
		}
	}
}

// fakeSpec is a Spec whose QEMU is the fake in mode.
func fakeSpec(t *testing.T, mode string) Spec {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeQEMUEnv, mode)
	return Spec{QEMU: self, Kernel: "/k", Initrd: "/i", CPUs: 2, MemoryMB: 256, Accel: "tcg", Dir: t.TempDir(), QMPDir: t.TempDir()}
}

// waitDone waits for the machine to be gone; a fake that outlives this
// is a test failure, not a hang.
func waitDone(t *testing.T, m Machine) {
	t.Helper()
	select {
	case <-m.Done():
	case <-time.After(time.Minute):
		t.Fatal("the fake QEMU is still running a minute after Shutdown")
	}
}

func TestStartShutdownAndInfo(t *testing.T) {
	s := fakeSpec(t, fakeOK)
	s.SSHPort = 2222
	in, err := Start(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if in.SSHAddr() != "127.0.0.1:2222" || in.Panicked() {
		t.Errorf("addr %s, panicked %v", in.SSHAddr(), in.Panicked())
	}
	info := in.Info()
	if info.QEMUVersion != "9.2.0" || info.Machine != MachineType || info.MaxCPUs != 2 || info.Args[0] != s.QEMU || info.Clock != "host" {
		t.Errorf("info %+v", info)
	}
	if err := in.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitDone(t, in)
	if tail := in.ConsoleTail(5); tail != "Linux version 6.12.0-fake" {
		t.Errorf("console tail %q", tail)
	}
}

// pvpanic's GUEST_PANICKED event over QMP marks the guest panicked, with
// no panic line on the console (TestConsoleFloodIsBoundedAndPanicFound
// covers the console's).
func TestPanicEventIsSeen(t *testing.T) {
	in, err := Start(context.Background(), fakeSpec(t, fakePanic))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Shutdown(context.Background())
	deadline := time.Now().Add(30 * time.Second)
	for !in.Panicked() {
		if time.Now().After(deadline) {
			t.Fatal("GUEST_PANICKED not seen in 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Shutdown of a QEMU that ignores quit kills it once the caller's context
// ends, and returns only when it is gone.
func TestShutdownKillsAQEMUThatIgnoresQuit(t *testing.T) {
	in, err := Start(context.Background(), fakeSpec(t, fakeDeaf))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := in.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-in.Done():
	default:
		t.Fatal("Shutdown returned with QEMU still running")
	}
}

// A picked port another process took first makes QEMU fail its host
// forwarding: Start tries again on a new port, three times in all; a port
// the caller chose is not changed.
func TestStartRetriesATakenPickedPort(t *testing.T) {
	for _, c := range []struct {
		port  int
		tries int
	}{{0, 3}, {2222, 1}} {
		s := fakeSpec(t, fakeNoForward)
		s.SSHPort = c.port
		log := filepath.Join(t.TempDir(), "starts")
		t.Setenv(fakeQEMULog, log)
		_, err := Start(context.Background(), s)
		if err == nil || !strings.Contains(err.Error(), "could not set up host forwarding") {
			t.Fatalf("port %d: %v, want QEMU's stderr in the error", c.port, err)
		}
		b, _ := os.ReadFile(log)
		if n := strings.Count(string(b), "\n"); n != c.tries {
			t.Errorf("port %d: %d starts, want %d", c.port, n, c.tries)
		}
	}
}

// A context that ends while Start waits for QMP ends Start, and the QEMU
// it started is killed, not left running.
func TestStartHonoursCancellation(t *testing.T) {
	s := fakeSpec(t, fakeMute)
	log := filepath.Join(t.TempDir(), "starts")
	t.Setenv(fakeQEMULog, log)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Start(ctx, s); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start: %v, want context.Canceled", err)
	}
	// The fake may not have logged yet when it was killed; if it did,
	// it must be gone (Start reaps it before returning).
	b, _ := os.ReadFile(log)
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("fake QEMU %d still exists after Start returned (%v)", pid, err)
		}
	}
}

// A guest that floods its console leaves a file within the caps, with the
// start and the end of what it printed.
func TestConsoleFloodFromQEMUIsBounded(t *testing.T) {
	in, err := Start(context.Background(), fakeSpec(t, fakeFlood))
	if err != nil {
		t.Fatal(err)
	}
	in.Shutdown(context.Background())
	waitDone(t, in)
	st, err := os.Stat(in.ConsolePath())
	if err != nil {
		t.Fatal(err)
	}
	if max := int64(ConsoleHeadBytes + 2*ConsoleTailBytes + 1024); st.Size() > max {
		t.Fatalf("console %d bytes, over its cap %d", st.Size(), max)
	}
	b, _ := os.ReadFile(in.ConsolePath())
	if !strings.HasPrefix(string(b), "Linux version 6.12.0-fake\n") || !strings.Contains(string(b), "bytes dropped here") || in.ConsoleTail(1) != "the end of the flood" {
		t.Fatalf("console lost its start, its note or its end (%d bytes, tail %q)", len(b), in.ConsoleTail(1))
	}
}

// QEMU pinned to host cores runs under taskset with QEMU's own arguments
// after it.
func TestCommandPinsToHostCPUs(t *testing.T) {
	s := Spec{QEMU: "qemu-system-x86_64", CPUs: 2, MemoryMB: 512, Accel: "tcg", Dir: "/d", SSHPort: 2222}
	if name, args := s.command(); name != "qemu-system-x86_64" || !slices.Equal(args, s.Args()) {
		t.Fatalf("unpinned: %s %v", name, args)
	}
	s.HostCPUs = []int{0, 2}
	name, args := s.command()
	if name != "taskset" || !slices.Equal(args[:3], []string{"-c", "0,2", "qemu-system-x86_64"}) || !slices.Equal(args[3:], s.Args()) {
		t.Fatalf("pinned: %s %v", name, args)
	}
}
