package filelock

import (
	"errors"
	"path/filepath"
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
