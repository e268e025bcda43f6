package contention

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/probe"
)

// instance is the tracefs instance the named locks' events go to.
const instance = "kregress-contention"

// maxTrace bounds what is read of the instance's text trace: its ring
// buffer (bufferKB per CPU) rendered as text is a few times larger.
const (
	bufferKB = 8192
	maxTrace = 256 << 20
)

// lock is a named lock the kernel can measure.
type lock struct {
	name string
	addr uint64
}

// Recorder records the waits for the locks Setup could resolve, and for
// any lock under the functions it was asked about.
type Recorder struct {
	inst  ftrace.FS
	locks []lock
	under []string
}

// Setup checks, for each of locks (kernel symbols), that the running
// kernel has the contention tracepoints and the symbol, and prepares a
// tracefs instance recording only their events (recording off until
// Start). Each lock the kernel cannot measure is in unavailable, with
// the reason; the Recorder is nil when none can be measured. An error is
// a tracefs that refused the set-up.
//
// Each function of under (a waiter's caller) gets the waits of every lock
// whose contention began with it on the stack: the instance then records
// every lock's events, each contention_begin with its stack (a
// stacktrace trigger).
func Setup(fs ftrace.FS, kern *probe.Kernel, locks, under []string) (*Recorder, []agentproto.Unavailable, error) {
	var unavail []agentproto.Unavailable
	missing, perr := kern.Missing(Events)
	if len(missing) > 0 {
		reason := probe.Unavailable(missing)
		if perr != nil {
			reason += " (" + perr.Error() + ")"
		}
		for _, l := range locks {
			unavail = append(unavail, Unavailable(l, reason)...)
		}
		for _, fn := range under {
			unavail = append(unavail, unavailable(UnderSpecs(fn), reason)...)
		}
		return nil, unavail, nil
	}
	unavailable := unavail
	var found []lock
	for _, l := range locks {
		addr, err := resolveIn(kern, l)
		if err != nil {
			unavailable = append(unavailable, Unavailable(l, "unavailable on this kernel: "+err.Error())...)
			continue
		}
		found = append(found, lock{l, addr})
	}
	if len(found) == 0 && len(under) == 0 {
		return nil, unavailable, nil
	}
	r, err := newRecorder(fs, found, under)
	return r, unavailable, err
}

// resolveIn resolves symbol through kern's /proc/kallsyms.
func resolveIn(kern *probe.Kernel, symbol string) (uint64, error) {
	proc := kern.Proc
	if proc == "" {
		proc = "/proc"
	}
	f, err := os.Open(filepath.Join(proc, "kallsyms"))
	if err != nil {
		return 0, fmt.Errorf("%w (CONFIG_KALLSYMS)", err)
	}
	defer f.Close()
	return Resolve(f, symbol)
}

func newRecorder(fs ftrace.FS, locks []lock, under []string) (*Recorder, error) {
	dir := filepath.Join(fs.Root, "instances", instance)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("tracefs: create instance %s: %w", instance, err)
	}
	r := &Recorder{inst: ftrace.FS{Root: dir}, locks: locks, under: under}
	var addrs []uint64
	for _, l := range locks {
		addrs = append(addrs, l.addr)
	}
	steps := [][2]string{
		{"tracing_on", "0"},
		// Real addresses in the text, to tell the locks apart (the
		// default hashes %p).
		{"options/hash-ptr", "0"},
		{"buffer_size_kb", fmt.Sprint(bufferKB)},
	}
	if len(under) == 0 {
		// Only the named locks: the rest would fill the buffer.
		filter := Filter(addrs)
		steps = append(steps, [2]string{"events/lock/contention_begin/filter", filter},
			[2]string{"events/lock/contention_end/filter", filter})
	} else {
		// Every lock, each wait's start with its stack, to find the
		// named callers in.
		steps = append(steps, [2]string{"events/lock/contention_begin/trigger", "stacktrace"})
	}
	steps = append(steps, [2]string{"events/lock/contention_begin/enable", "1"},
		[2]string{"events/lock/contention_end/enable", "1"})
	for _, s := range steps {
		if err := r.inst.Write(s[0], s[1]); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Start starts recording.
func (r *Recorder) Start() error { return r.inst.Write("tracing_on", "1") }

// Stop stops recording and returns each lock's metrics, in the order the
// locks were named, and what the reader should know of the figures (lost
// events).
func (r *Recorder) Stop() ([]agentproto.Metric, []string, error) {
	if err := r.inst.Write("tracing_on", "0"); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(filepath.Join(r.inst.Root, "trace"))
	if err != nil {
		return nil, nil, fmt.Errorf("tracefs: %w", err)
	}
	defer f.Close()
	w, err := ParseUnder(io.LimitReader(f, maxTrace), r.under)
	if err != nil {
		return nil, nil, fmt.Errorf("tracefs: %s/trace: %w", instance, err)
	}
	var out []agentproto.Metric
	for _, l := range r.locks {
		out = append(out, Metrics(l.name, w.US[l.addr])...)
	}
	for _, fn := range r.under {
		out = append(out, figures(UnderSpecs(fn), w.Under[fn])...)
	}
	var warnings []string
	if w.Lost {
		warnings = append(warnings, "lock contention: the trace lost events (ring buffer overrun): the waits are those kept")
	}
	return out, warnings, nil
}
