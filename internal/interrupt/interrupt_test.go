package interrupt

import (
	"bytes"
	"os"
	"syscall"
	"testing"
	"time"
)

// The first SIGINT cancels the context, saying why; cancelling it
// without a signal leaves the process's signal handling as it was.
func TestFirstSignalCancels(t *testing.T) {
	var w bytes.Buffer
	ctx, cancel := Context(&w, "interrupted", 130)
	defer cancel()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not cancel the context")
	}
	// The message is printed before cancel: it is there by now.
	if got := w.String(); got != "interrupted\n" {
		t.Errorf("said %q", got)
	}
	ctx2, cancel2 := Context(&w, "x", 130)
	cancel2()
	<-ctx2.Done()
}
