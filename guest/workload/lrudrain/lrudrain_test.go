package lrudrain

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestValidateAndMissingTrigger(t *testing.T) {
	ok := Params{Pause: 20 * time.Millisecond, Duration: 4 * time.Second, Window: time.Second, Trigger: "compact_memory", SysctlDir: "/nonexistent"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := ok
	bad.Pause = 0
	if bad.Validate() == nil {
		t.Fatal("pause 0 accepted")
	}
	_, err := Run(context.Background(), ok)
	if err == nil || !strings.Contains(err.Error(), "CONFIG_COMPACTION") {
		t.Fatalf("missing trigger should name the config option: %v", err)
	}
	bad = ok
	bad.Trigger = "sync"
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "drop_caches, compact_memory") {
		t.Fatalf("unknown trigger: %v", err)
	}
	if p := (Params{SysctlDir: "/proc/sys/vm"}).triggerPath(); p != "/proc/sys/vm/drop_caches" {
		t.Fatalf("default trigger writes %s", p)
	}
}

// faultLoop must return when its context ends (it runs on every CPU).
func TestFaultLoopStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() { faultLoop(ctx); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("faultLoop did not stop")
	}
}
