package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// vm cuts the middle out of a flooded console, so the file shrinks under
// the watch: the mark printed after the cut is still seen, and the
// watch's buffer stays bounded however much the guest printed first.
func TestConsoleWatchSurvivesACutConsole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "console.log")
	flood := strings.Repeat("printk flood\n", 1<<16) // 832 KiB
	if err := os.WriteFile(path, []byte("Linux version 6.12\n"+flood), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := watchConsole(ctx, path)
	waitMark(t, w, "kernel start")
	// The cut: the file is shorter than what the watch has read.
	if err := os.WriteFile(path, []byte("Linux version 6.12\n[kregress: console over its cap]\nssh listening on 0.0.0.0:22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.listening:
	case <-ctx.Done():
		t.Fatal("'ssh listening' printed after the console was cut was never seen")
	}
}

func waitMark(t *testing.T, w *ConsoleWatch, phase string) {
	t.Helper()
	for i := 0; i < 6000; i++ {
		if _, ok := w.at(phase); ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("mark %q never seen", phase)
}

// A kernel message printed while init's announcement drains through the
// UART lands in the middle of it: the watch never sees "ssh listening
// on". The host must dial once the grace after /init has passed, not wait
// out the boot timeout and then call the guest unreachable.
func TestWaitAgentDialsWhenTheAnnouncementIsCut(t *testing.T) {
	dir := t.TempDir()
	m := newFakeMachine()
	m.consolePath = filepath.Join(dir, "console.log")
	cut := "Linux version 6.12\nRun /init as init process\nkregress-init: ssh list[    1.852600] tsc: Refined TSC clocksource calibration: 2445.418 MHz\nening on :22\n"
	if err := os.WriteFile(m.consolePath, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := watchConsole(ctx, m.consolePath)
	d := &fakeDialer{}
	g, err := waitAgent(ctx, d, m, w, 50*time.Millisecond, time.Hour)
	if err != nil {
		t.Fatalf("waitAgent: %v", err)
	}
	g.Close()
	if _, ok := w.at(sshListening); ok {
		t.Fatal("the cut announcement was matched: the test no longer reproduces a lost line")
	}
}

// A console that never shows even /init (a kernel booted "quiet") still
// gets dialed, after the grace from the start.
func TestWaitAgentDialsWithoutAnyMark(t *testing.T) {
	m := newFakeMachine()
	m.consolePath = filepath.Join(t.TempDir(), "console.log")
	os.WriteFile(m.consolePath, nil, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := waitAgent(ctx, &fakeDialer{}, m, watchConsole(ctx, m.consolePath), time.Hour, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("waitAgent: %v", err)
	}
	g.Close()
}

// When the boot timeout ends before init announced anything, the error
// says so and names how far the boot got, instead of blaming a dial that
// was never really tried.
func TestWaitAgentTimeoutNamesTheLastBootPhase(t *testing.T) {
	m := newFakeMachine()
	m.consolePath = filepath.Join(t.TempDir(), "console.log")
	os.WriteFile(m.consolePath, []byte("Linux version 6.12\nUnpacking initramfs...\n"), 0o644)
	watchCtx, stop := context.WithCancel(context.Background())
	defer stop()
	w := watchConsole(watchCtx, m.consolePath)
	waitMark(t, w, "unpacking initramfs")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	d := &fakeDialer{}
	_, err := waitAgent(ctx, d, m, w, time.Hour, time.Hour)
	if err == nil {
		t.Fatal("no error though the guest never announced SSH")
	}
	if !strings.Contains(err.Error(), `did not announce its SSH server`) || !strings.Contains(err.Error(), `"unpacking initramfs"`) || strings.Contains(err.Error(), "dial") {
		t.Errorf("error %q does not say the guest never announced SSH and how far it booted", err)
	}
	if d.dials != 0 {
		t.Errorf("dialed %d times after the boot timeout", d.dials)
	}
}
