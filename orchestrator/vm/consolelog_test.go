package vm

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/logread"
	"github.com/kregress/kregress/orchestrator/oops"
)

// A guest printing without end: the file keeps its head, a note with the
// exact count dropped, and the console's real end; after every write its
// last bytes are the stream's last bytes, so a reader polling the end
// (Panicked, the tail) never misses what was just printed.
func TestConsoleLogKeepsHeadAndRollingTail(t *testing.T) {
	const head, tail = 64 << 10, 32 << 10
	path := filepath.Join(t.TempDir(), "console.log")
	c, err := newConsoleLog(path, head, tail)
	if err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer
	for i := 0; stream.Len() < 40*(head+tail); i++ {
		line := fmt.Appendf(nil, "[%8d] flood line %d %s\n", i, i, strings.Repeat("y", i%300))
		stream.Write(line)
		if n, err := c.Write(line); n != len(line) || err != nil {
			t.Fatalf("write: %d, %v", n, err)
		}
		if i%97 == 0 {
			got, _ := logread.Tail(path, 64)
			if want := stream.Bytes()[stream.Len()-len(got):]; !bytes.Equal(got, want) {
				t.Fatalf("after %d bytes the file ends %q, the console %q", stream.Len(), got, want)
			}
		}
	}
	panicLine := []byte("Kernel panic - not syncing: the end\n")
	stream.Write(panicLine)
	c.Write(panicLine)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if max := head + 2*tail + len(truncationNote(0)) + len(panicLine); len(data) > max {
		t.Fatalf("console file %d bytes, cap %d", len(data), max)
	}
	if !bytes.Equal(data[:head], stream.Bytes()[:head]) {
		t.Fatal("the console's first bytes are not kept")
	}
	m := regexp.MustCompile(`\n\[kregress: console over its cap; +(\d+) bytes dropped here; the start and the end are kept\]\n`).FindSubmatchIndex(data)
	if m == nil || m[0] != head {
		t.Fatalf("no truncation note after the head: %q", data[head:head+120])
	}
	dropped, _ := strconv.Atoi(string(data[m[2]:m[3]]))
	kept := data[m[1]:]
	if head+dropped+len(kept) != stream.Len() {
		t.Fatalf("note says %d dropped; head %d + dropped + tail %d != %d written", dropped, head, len(kept), stream.Len())
	}
	if !bytes.Equal(kept, stream.Bytes()[stream.Len()-len(kept):]) {
		t.Fatal("the kept tail is not the console's end")
	}
	if len(kept) < tail-tail/4 || kept[0] != '[' {
		t.Fatalf("kept tail %d bytes starting %q: want about %d from a line's start", len(kept), kept[:20], tail)
	}
}

// The real plumbing: a process writes the console to /dev/fd/3 (QEMU's
// -serial file:/dev/fd/3 opens exactly that) for 200 MiB and then panics;
// the file stays within its cap, the panic is found by Panicked and by the
// kernel-report search, and the copy ends when the process does.
func TestConsoleFloodIsBoundedAndPanicFound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MiB through a pipe")
	}
	dir := t.TempDir()
	in := &Instance{spec: Spec{Dir: dir}}
	cc, err := newConsoleCopy(in.ConsolePath(), ConsoleHeadBytes, ConsoleTailBytes)
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`exec >/dev/fd/%d; echo 'Linux version 6.12 (boot)'; yes 'printk flood from a stuck driver' | head -c 209715200; echo; echo 'Kernel panic - not syncing: late panic'`, consoleFD)
	cmd := exec.Command("sh", "-c", script)
	cmd.ExtraFiles = []*os.File{cc.w}
	if err := cmd.Start(); err != nil {
		cc.abort()
		t.Fatal(err)
	}
	cc.started()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	cc.wait(5 * time.Second)
	st, err := os.Stat(in.ConsolePath())
	if err != nil {
		t.Fatal(err)
	}
	if max := int64(ConsoleHeadBytes + 2*ConsoleTailBytes + 200); st.Size() > max {
		t.Fatalf("console file %d bytes after a 200 MiB flood, cap %d", st.Size(), max)
	}
	if !in.Panicked() {
		t.Fatal("the panic at the end of a flooded console was not seen")
	}
	data, _ := os.ReadFile(in.ConsolePath())
	if !bytes.HasPrefix(data, []byte("Linux version 6.12 (boot)\n")) {
		t.Fatalf("the boot's start is lost: %q", data[:40])
	}
	fs := oops.Parse(data)
	if len(fs) != 1 || fs[0].Title != "kernel panic: late panic" {
		t.Fatalf("kernel reports in the bounded console: %+v", fs)
	}
	if got := ConsoleTail(in.ConsolePath(), 1); got != "Kernel panic - not syncing: late panic" {
		t.Fatalf("console tail %q", got)
	}
}

// A process that leaves a child holding the console pipe does not keep
// the copy (and so the cell) waiting past the grace period.
func TestConsoleCopyEndsWhenAChildHoldsThePipe(t *testing.T) {
	cc, err := newConsoleCopy(filepath.Join(t.TempDir(), "console.log"), 1<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", fmt.Sprintf(`echo hello >/dev/fd/%d; sleep 3 & exit 0`, consoleFD))
	cmd.ExtraFiles = []*os.File{cc.w}
	if err := cmd.Start(); err != nil {
		cc.abort()
		t.Fatal(err)
	}
	cc.started()
	cmd.Wait()
	cc.wait(100 * time.Millisecond)
	select {
	case <-cc.done:
	default:
		t.Fatal("wait returned before the copy ended")
	}
}
