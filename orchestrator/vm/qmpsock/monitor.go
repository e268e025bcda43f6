// Package qmpsock is a QMP monitor over a unix socket that implements
// go-qemu's qmp.Monitor interface, so go-qemu's qemu.Domain can drive it.
// go-qemu's own socket monitor reads lines with a bufio.Scanner (a reply over
// 64 KiB breaks it for good), has no timeouts, and delivers events
// unbuffered under a lock (a listener that stops reading hangs every later
// command). This one decodes with json.Decoder, bounds every command with a
// timeout, and queues events without limit so a slow reader never blocks
// command replies.
package qmpsock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/digitalocean/go-qemu/qmp"
)

// Monitor is a QMP connection.
type Monitor struct {
	path    string
	timeout time.Duration

	mu      sync.Mutex // serialises commands
	nextID  int
	conn    net.Conn
	replies chan json.RawMessage
	events  *eventQueue
	done    chan struct{}
	readErr error
}

// New returns a monitor for the QMP socket at path; each command waits at
// most timeout for its reply.
func New(path string, timeout time.Duration) *Monitor {
	return &Monitor{path: path, timeout: timeout}
}

// Connect dials the socket, reads the greeting and negotiates capabilities.
func (m *Monitor) Connect() error {
	c, err := net.DialTimeout("unix", m.path, m.timeout)
	if err != nil {
		return fmt.Errorf("qmp: dial %s: %w", m.path, err)
	}
	dec := json.NewDecoder(c)
	c.SetReadDeadline(time.Now().Add(m.timeout))
	var greeting struct {
		QMP *json.RawMessage `json:"QMP"`
	}
	if err := dec.Decode(&greeting); err != nil || greeting.QMP == nil {
		c.Close()
		return fmt.Errorf("qmp: no greeting on %s: %v", m.path, err)
	}
	c.SetReadDeadline(time.Time{})
	m.conn = c
	m.replies = make(chan json.RawMessage, 1)
	m.events = newEventQueue()
	m.done = make(chan struct{})
	go m.read(dec)
	if _, err := m.Run([]byte(`{"execute":"qmp_capabilities"}`)); err != nil {
		c.Close()
		return fmt.Errorf("qmp: capabilities: %w", err)
	}
	return nil
}

// read splits the stream into command replies and events.
func (m *Monitor) read(dec *json.Decoder) {
	defer close(m.done)
	defer m.events.close()
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			m.readErr = err
			return
		}
		var probe struct {
			Event *string `json:"event"`
		}
		json.Unmarshal(raw, &probe)
		if probe.Event != nil {
			var ev qmp.Event
			if json.Unmarshal(raw, &ev) == nil {
				m.events.push(ev)
			}
			continue
		}
		select {
		case m.replies <- raw:
		case <-time.After(m.timeout):
			// Nobody waits for this reply any more (its command timed
			// out): drop it rather than wedge the reader.
		}
	}
}

// Disconnect closes the connection.
func (m *Monitor) Disconnect() error {
	if m.conn == nil {
		return nil
	}
	err := m.conn.Close()
	<-m.done
	return err
}

// Run sends a raw JSON command and returns its raw reply. A QMP error
// reply is returned as an error.
func (m *Monitor) Run(command []byte) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conn == nil {
		return nil, errors.New("qmp: not connected")
	}
	// Tag the command with an id so a late reply to a command that
	// timed out is never taken for this one's.
	var cmd map[string]json.RawMessage
	if err := json.Unmarshal(command, &cmd); err != nil {
		return nil, fmt.Errorf("qmp: command is not a JSON object: %w", err)
	}
	m.nextID++
	id := fmt.Sprintf("kregress-%d", m.nextID)
	cmd["id"], _ = json.Marshal(id)
	tagged, _ := json.Marshal(cmd)
	m.conn.SetWriteDeadline(time.Now().Add(m.timeout))
	if _, err := m.conn.Write(append(tagged, '\n')); err != nil {
		return nil, fmt.Errorf("qmp: send: %w", err)
	}
	timeout := time.After(m.timeout)
	for {
		select {
		case raw := <-m.replies:
			var r struct {
				ID    string `json:"id"`
				Error *struct {
					Class string `json:"class"`
					Desc  string `json:"desc"`
				} `json:"error"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("qmp: reply: %w", err)
			}
			if r.ID != id {
				continue // a stale reply to an earlier, timed-out command
			}
			if r.Error != nil {
				return nil, fmt.Errorf("qmp: %s: %s", r.Error.Class, r.Error.Desc)
			}
			return raw, nil
		case <-m.done:
			return nil, fmt.Errorf("qmp: connection closed: %v", m.readErr)
		case <-timeout:
			return nil, fmt.Errorf("qmp: no reply to %s within %s", command, m.timeout)
		}
	}
}

// Events streams events until ctx ends or the connection closes.
func (m *Monitor) Events(ctx context.Context) (<-chan qmp.Event, error) {
	if m.events == nil {
		return nil, errors.New("qmp: not connected")
	}
	out := make(chan qmp.Event)
	go func() {
		defer close(out)
		for {
			ev, ok := m.events.pop(ctx)
			if !ok {
				return
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// eventQueue is an unbounded FIFO: QEMU's few events per run never need a
// bound, and a bound would reintroduce the blocking this package avoids.
type eventQueue struct {
	mu     sync.Mutex
	items  []qmp.Event
	signal chan struct{}
	closed bool
}

func newEventQueue() *eventQueue { return &eventQueue{signal: make(chan struct{}, 1)} }

func (q *eventQueue) push(ev qmp.Event) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *eventQueue) pop(ctx context.Context) (qmp.Event, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			ev := q.items[0]
			q.items = q.items[1:]
			q.mu.Unlock()
			return ev, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return qmp.Event{}, false
		}
		select {
		case <-q.signal:
		case <-ctx.Done():
			return qmp.Event{}, false
		}
	}
}

var _ qmp.Monitor = (*Monitor)(nil)
