package qmpsock

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeQMP answers like QEMU: a greeting, then one reply per command; it
// emits an event before every reply and answers "big" with a reply larger
// than bufio.Scanner's 64 KiB limit.
func fakeQMP(t *testing.T) string {
	sock := filepath.Join(t.TempDir(), "qmp.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintln(c, `{"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 7}, "package": ""}, "capabilities": []}}`)
		r := bufio.NewReader(c)
		hungID := ""
		dec := json.NewDecoder(r)
		for {
			var cmd struct {
				Execute string
				ID      string
			}
			if err := dec.Decode(&cmd); err != nil {
				return
			}
			fmt.Fprintf(c, `{"event": "TEST_EVENT", "data": {"cmd": %q}, "timestamp": {"seconds": 1, "microseconds": 2}}`+"\n", cmd.Execute)
			switch cmd.Execute {
			case "big":
				fmt.Fprintf(c, `{"return": {"blob": %q}, "id": %q}`+"\n", strings.Repeat("x", 200_000), cmd.ID)
			case "bad":
				fmt.Fprintf(c, `{"error": {"class": "CommandNotFound", "desc": "The command bad has not been found"}, "id": %q}`+"\n", cmd.ID)
			case "hang":
				// answer only after the command timed out
				hungID = cmd.ID
			default:
				if hungID != "" {
					fmt.Fprintf(c, `{"return": {"stale": true}, "id": %q}`+"\n", hungID)
					hungID = ""
				}
				fmt.Fprintf(c, `{"return": {}, "id": %q}`+"\n", cmd.ID)
			}
		}
	}()
	return sock
}

func TestMonitor(t *testing.T) {
	m := New(fakeQMP(t), 500*time.Millisecond)
	if err := m.Connect(); err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	// Nobody reads events yet: commands must still work.
	for i := 0; i < 5; i++ {
		if _, err := m.Run([]byte(`{"execute":"query-status"}`)); err != nil {
			t.Fatal(err)
		}
	}
	out, err := m.Run([]byte(`{"execute":"big"}`))
	if err != nil || len(out) < 200_000 {
		t.Fatalf("big reply: %d bytes, %v", len(out), err)
	}
	if _, err := m.Run([]byte(`{"execute":"bad"}`)); err == nil || !strings.Contains(err.Error(), "CommandNotFound") {
		t.Fatalf("qmp error: %v", err)
	}
	if _, err := m.Run([]byte(`{"execute":"hang"}`)); err == nil || !strings.Contains(err.Error(), "no reply") {
		t.Fatalf("hang: %v", err)
	}
	out, err = m.Run([]byte(`{"execute":"query-status"}`))
	if err != nil || strings.Contains(string(out), "stale") {
		t.Fatalf("took the stale reply of a timed-out command: %s %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	evs, err := m.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ev := range evs {
		if ev.Event != "TEST_EVENT" {
			t.Fatalf("event %+v", ev)
		}
		n++
		if n == 9 { // capabilities + 5 + big + bad + hang, all queued
			break
		}
	}
}
