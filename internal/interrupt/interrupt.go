// Package interrupt gives a long command a graceful Ctrl-C: the first
// SIGINT or SIGTERM cancels its context (so it finishes its bookkeeping
// and stores what it measured), a second one exits at once.
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Context is cancelled on the first SIGINT/SIGTERM, after saying msg on
// w; a second signal exits the process with status code. Cancelling it
// stops listening.
func Context(w io.Writer, msg string, code int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(ch)
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
		fmt.Fprintln(w, msg)
		cancel()
		<-ch
		os.Exit(code)
	}()
	return ctx, cancel
}
