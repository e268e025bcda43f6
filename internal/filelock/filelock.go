// Package filelock serialises processes on one host around a cache entry
// (a kernel tree, a guest image, the selftest binaries): two kregress runs
// building the same thing at once must not both build it.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Lock takes an exclusive flock on path (created, with its directory, if
// missing) and returns the function that releases it. It blocks while
// another process holds the lock.
func Lock(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// HeldError says another process holds a lock taken with TryLock, and
// who: what that process wrote into the lock file.
type HeldError struct {
	Path   string
	Holder string
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is held by another process (%s)", e.Path, e.Holder)
}

// TryLock takes the lock on path without waiting: when another process
// holds it, it returns a *HeldError naming the holder (the text the holder
// gave as who). The returned function releases it.
func TryLock(path, who string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &HeldError{Path: path, Holder: strings.TrimSpace(string(holder))}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(who+"\n"), 0)
	return func() { f.Truncate(0); syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// Holder is the text LockContext writes into a lock it holds: who waits
// can say who it waits for.
func Holder() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("pid %d on %s since %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
}

// LockContext takes the exclusive lock on path like Lock, writing
// Holder() into it, but gives up when ctx is done (Ctrl-C) and, while it
// waits, calls waiting once with what the holder wrote ("pid 123 on host
// since ..."; empty when the holder is an older kregress that wrote
// nothing). flock(2) cannot be interrupted from Go, so it polls a
// non-blocking flock, at most every 500 ms.
func LockContext(ctx context.Context, path string, waiting func(holder string)) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	told := false
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !told && waiting != nil {
			told = true
			holder, _ := os.ReadFile(path)
			waiting(strings.TrimSpace(string(holder)))
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(delay):
		}
	}
	f.Truncate(0)
	f.WriteAt([]byte(Holder()+"\n"), 0)
	return func() { f.Truncate(0); syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
