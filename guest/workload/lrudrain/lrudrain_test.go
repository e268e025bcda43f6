package lrudrain

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestValidateAndMissingTrigger(t *testing.T) {
	ok := Params{Pause: 20 * time.Millisecond, Duration: 4 * time.Second, Window: time.Second, Trigger: "/nonexistent/compact_memory"}
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
}
