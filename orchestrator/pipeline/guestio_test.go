package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/sshd/sshdtest"
	"github.com/kregress/kregress/orchestrator/remote"
	"github.com/kregress/kregress/results"
)

// loopbackDialer dials kagent's real SSH server on loopback, whatever
// address the machine gives.
type loopbackDialer struct {
	remote.SSHDialer
	addr string
}

func (d loopbackDialer) Dial(ctx context.Context, _ string) (remote.Guest, error) {
	return d.SSHDialer.Dial(ctx, d.addr)
}

// realGuest starts kagent's SSH server with /bin/sh on loopback: a
// guest without QEMU whose commands really run and really write.
func realGuest(t *testing.T) loopbackDialer {
	_, client := sshdtest.Key(t)
	addr, host := sshdtest.Start(t, client)
	return loopbackDialer{SSHDialer: remote.SSHDialer{ClientKey: client, HostKey: host.PublicKey(), Timeout: 5 * time.Second}, addr: addr}
}

// A guest that floods its stdout (or stderr) with 1 GiB: the cell is
// bad_output naming the stream and the cap, and the host's memory stays
// bounded by the cap, not by what the guest wrote.
func TestCellGuestFloodsOutput(t *testing.T) {
	d := realGuest(t)
	for stream, c := range map[string]struct{ cmd, cap string }{
		"stdout": {"head -c 1073741824 /dev/zero", "16 MiB"},
		"stderr": {"head -c 1073741824 /dev/zero >&2", "1 MiB"},
	} {
		r := newRunner(&fakeBooter{}, d)
		r.WorkloadTimeout = time.Minute
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := r.Run(context.Background(), Cell{Seq: 1, Repetition: 1, Variant: "v"}, VariantBuild{Name: "v"}, c.cmd, t.TempDir())
		runtime.ReadMemStats(&after)
		if res.Status != results.StatusBadOutput {
			t.Fatalf("%s flood: status %s (%s), want bad_output", stream, res.Status, res.Error)
		}
		if !strings.Contains(res.Error, "workload: guest command") || !strings.Contains(res.Error, "cap of "+c.cap+" on "+stream) {
			t.Fatalf("%s flood: error does not name the stream and the cap: %s", stream, res.Error)
		}
		if len(res.Document) != 0 || len(res.Metrics) != 0 {
			t.Fatalf("%s flood: a document was stored", stream)
		}
		// 1 GiB buffered would show here; the cap is 16 MiB.
		if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
			t.Fatalf("%s flood allocated %d MiB", stream, got>>20)
		}
	}
}

// A hostile value is refused at decode, naming the metric.
func TestCellRefusesNonFiniteMetric(t *testing.T) {
	for _, v := range []string{"1e999", `"NaN"`, "null"} {
		out := `{"schema":"kregress.agent/v1","workload":"rstat","metrics":[{"name":"reads_per_sec","unit":"u","direction":"higher","value":` + v + `}]}`
		r := newRunner(&fakeBooter{}, &fakeDialer{run: okRun([]byte(out))})
		res := r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
		if res.Status != results.StatusBadOutput || !strings.Contains(res.Error, `metric "reads_per_sec"`) || len(res.Metrics) != 0 {
			t.Errorf("value %s: %s: %s", v, res.Status, res.Error)
		}
	}
}

// Control characters from the guest are escaped in everything the cell
// stores: the holder, the stored document, the error text with the
// agent's stderr and the console tail, the kernel report titles.
func TestCellEscapesGuestControlCharacters(t *testing.T) {
	d := &agentproto.Document{
		Schema: agentproto.Schema, AgentVersion: "test", Workload: "rstat",
		Metrics:  []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 1}},
		Irqsoff:  &agentproto.Irqsoff{Worst: &agentproto.Section{LatencyUS: 100, Holder: "\x1b[31mevil\x1b[0m"}, Windows: []agentproto.Section{{Holder: "\u009b2J"}}},
		Warnings: []string{"w\x1b]0;title\x07"},
	}
	var doc bytes.Buffer
	agentproto.Encode(&doc, d)
	dmesg := "Kernel panic - not syncing: \x1b[2Jwiped\n"
	r := newRunner(&fakeBooter{}, &fakeDialer{run: okRun(doc.Bytes()), dmesg: dmesg})
	res := r.Run(context.Background(), Cell{Seq: 1, Repetition: 1, Variant: "v"}, VariantBuild{Name: "v"}, "x", t.TempDir())
	if res.Status != results.StatusOK {
		t.Fatalf("%s: %s", res.Status, res.Error)
	}
	if res.IrqsoffHolder != `\x1b[31mevil\x1b[0m` || !strings.Contains(res.Error, `w\x1b]0;title\x07`) {
		t.Fatalf("holder %q, error %q", res.IrqsoffHolder, res.Error)
	}
	if bytes.Contains(res.Document, []byte(`\u001b`)) || bytes.Contains(res.Document, []byte("\u009b")) || !bytes.Contains(res.Document, []byte(`\\u009b2J`)) {
		t.Fatalf("stored document carries raw control characters:\n%s", res.Document)
	}
	if len(res.Findings) != 1 || res.Findings[0].Title != `kernel panic: \x1b[2Jwiped` {
		t.Fatalf("findings %+v", res.Findings)
	}

	// A failing agent: its stderr and the console tail, escaped, bounded.
	b := &fakeBooter{}
	r = newRunner(b, &fakeDialer{booter: b, run: func(context.Context, string) ([]byte, []byte, error) {
		b.machine.console = "\x1b[2J" + strings.Repeat("console flood ", 1<<20)
		stderr := "kagent: \x1b[31mboom"
		return nil, []byte(stderr), &remote.ExitError{Code: 1, Stderr: stderr}
	}})
	res = r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusAgentFailed || strings.ContainsRune(res.Error, 0x1b) || !strings.Contains(res.Error, `kagent: \x1b[31mboom`) {
		t.Fatalf("%s: %.300q", res.Status, res.Error)
	}
	// A crash keeps the console tail: bounded however long the line.
	r = newRunner(b, &fakeDialer{booter: b, run: func(ctx context.Context, _ string) ([]byte, []byte, error) {
		b.machine.die(true, "\x1b[2J"+strings.Repeat("console flood ", 1<<20)+"Kernel panic - not syncing: x")
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}})
	// The crash must end the cell, not the workload's timeout: a timeout
	// long enough that building 14 MB of console on a loaded host cannot
	// reach it (it did at 2 s under load 20).
	r.WorkloadTimeout = time.Minute
	res = r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusCrashed || strings.ContainsRune(res.Error, 0x1b) || len(res.Error) > maxErrorText+200 || !strings.Contains(res.Error, "bytes cut") {
		t.Fatalf("%s: %d bytes: %.300q", res.Status, len(res.Error), res.Error)
	}
}

// The cell's progress lines quote the guest too (a failing dmesg).
func TestCellProgressEscapesGuestText(t *testing.T) {
	var lines []string
	r := newRunner(&fakeBooter{}, &fakeDialer{run: func(_ context.Context, cmd string) ([]byte, []byte, error) {
		return goodDocument(1), nil, nil
	}})
	r.Dialer = dmesgFails{r.Dialer.(*fakeDialer)}
	r.Progress = func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	res := r.Run(context.Background(), Cell{Seq: 1, Repetition: 1, Variant: "v"}, VariantBuild{Name: "v"}, "x", t.TempDir())
	all := strings.Join(lines, "\n")
	if res.Status != results.StatusOK || strings.ContainsRune(all, 0x1b) || !strings.Contains(all, `\x1b[2J`) {
		t.Fatalf("%s; progress: %q", res.Status, all)
	}
}

// dmesgFails is a guest whose dmesg exits 1 with escape sequences on
// its stderr.
type dmesgFails struct{ *fakeDialer }

func (d dmesgFails) Dial(ctx context.Context, addr string) (remote.Guest, error) {
	g, err := d.fakeDialer.Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return dmesgFailsGuest{g}, nil
}

type dmesgFailsGuest struct{ remote.Guest }

func (g dmesgFailsGuest) Run(ctx context.Context, cmd string) ([]byte, []byte, error) {
	if cmd == "dmesg" {
		return nil, []byte("\x1b[2J"), &remote.ExitError{Cmd: cmd, Code: 1, Stderr: "\x1b[2J"}
	}
	return g.Guest.Run(ctx, cmd)
}
