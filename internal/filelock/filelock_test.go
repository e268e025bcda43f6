package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A second Lock on the same path waits until the first is released.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	go func() {
		u, err := Lock(path)
		if err == nil {
			u()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("second Lock did not wait for the first")
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("second Lock never got the lock")
	}
}

func TestTryLockNamesHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nightly.lock")
	unlock, err := TryLock(path, "pid 42 on ci-1 since 02:00")
	if err != nil {
		t.Fatal(err)
	}
	// flock is per open file description: a second TryLock in this
	// process conflicts like another process would.
	_, err = TryLock(path, "me")
	var held *HeldError
	if !errors.As(err, &held) || held.Holder != "pid 42 on ci-1 since 02:00" {
		t.Fatalf("second TryLock: %v", err)
	}
	unlock()
	again, err := TryLock(path, "me")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	again()
}

// A waiter is told who holds the lock (pid, host, since) and gives up on
// cancel (Ctrl-C) instead of blocking in flock forever.
func TestLockContextNamesHolderAndHonoursCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ws.lock")
	unlock, err := LockContext(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	holders := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		u, err := LockContext(ctx, path, func(h string) { holders <- h; cancel() })
		if err == nil {
			u()
		}
		done <- err
	}()
	h := <-holders
	if want := fmt.Sprintf("pid %d on ", os.Getpid()); !strings.HasPrefix(h, want) || !strings.Contains(h, " since ") {
		t.Errorf("holder %q, want it to start %q and say since when", h, want)
	}
	if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "ws.lock") {
		t.Fatalf("cancelled wait: %v", err)
	}
	// Still held by the first: a cancelled waiter took nothing. Released,
	// the next caller gets it.
	if _, err := TryLock(path, "x"); err == nil {
		t.Fatal("lock free while its holder still holds it")
	}
	unlock()
	u, err := LockContext(context.Background(), path, func(string) { t.Error("waited for a free lock") })
	if err != nil {
		t.Fatal(err)
	}
	u()
}
