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
