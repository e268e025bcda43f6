// Package probe says what a kernel offers that a metric needs: a
// tracepoint, a function the irqs-off holder classifier looks for. Each
// metric's needs are declared with the metric, in its workload's
// descriptor (guest/metrics.Spec.Needs); the guest agent checks them
// against the running kernel (tracefs, /proc/kallsyms) before a workload
// runs and reports each metric it cannot measure as unavailable, with what
// is missing, instead of a silent gap or a silent zero; the host checks the
// tracepoints against the source tree before anything is built, so an
// experiment whose primary metric the kernel cannot produce is refused up
// front.
//
// Kernels differ: Debian's 6.1 has no cgroup:cgroup_rstat_locked (added in
// 6.10), and upstream after the 6.15 rstat rework renames the lock and the
// flush functions. A metric whose needs a tree lacks is unavailable there;
// a newer tree that offers them is measured without code changes.
package probe

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/regularfile"
)

// Kind is what sort of kernel feature a need is.
type Kind string

const (
	// Tracepoint is "system/event" under tracefs events/.
	Tracepoint Kind = "tracepoint"
	// FunctionPart is a substring of a kernel function's name, as the
	// irqsoff tracer prints it (the holder classifier matches by it).
	FunctionPart Kind = "function"
)

// Need is one thing a metric needs from the kernel.
type Need struct {
	Kind Kind
	Name string
}

func (n Need) String() string {
	switch n.Kind {
	case Tracepoint:
		return "tracepoint " + strings.Replace(n.Name, "/", ":", 1)
	case FunctionPart:
		return fmt.Sprintf("kernel function named *%s*", n.Name)
	}
	return string(n.Kind) + " " + n.Name
}

// Unavailable is the reason text stored with a metric the kernel cannot
// produce.
func Unavailable(missing []Need) string {
	var parts []string
	for _, n := range missing {
		parts = append(parts, "no "+n.String())
	}
	return "unavailable on this kernel: " + strings.Join(parts, ", ")
}

// Want is one metric and what it needs of the kernel.
type Want struct {
	Metric string
	Needs  []Need
}

// Unmeasurable returns, for each of wants whose needs the running kernel
// lacks, the reason to report (Unavailable's text), in wants' order; a
// metric with no needs, or all of them met, is not in it.
func (k *Kernel) Unmeasurable(wants []Want) []agentproto.Unavailable {
	var out []agentproto.Unavailable
	for _, w := range wants {
		m := w.Metric
		missing, err := k.Missing(w.Needs)
		if len(missing) == 0 {
			continue
		}
		reason := Unavailable(missing)
		if err != nil {
			reason += " (" + err.Error() + ")"
		}
		out = append(out, agentproto.Unavailable{Metric: m, Reason: reason})
	}
	return out
}

// Kernel is the running kernel as the guest sees it.
type Kernel struct {
	Tracefs string // mounted tracefs, e.g. /sys/kernel/tracing
	Proc    string // procfs, normally /proc
	syms    []string
	symErr  error
	read    bool
}

// Missing returns the needs the running kernel lacks, in order. A need
// that cannot be checked (kallsyms unreadable) counts as missing, with
// the reason in the error, so a figure is never reported on a guess.
func (k *Kernel) Missing(needs []Need) ([]Need, error) {
	var missing []Need
	var errs []error
	for _, n := range needs {
		ok, err := k.has(n)
		if err != nil {
			errs = append(errs, err)
		}
		if !ok {
			missing = append(missing, n)
		}
	}
	return missing, errors.Join(errs...)
}

func (k *Kernel) has(n Need) (bool, error) {
	switch n.Kind {
	case Tracepoint:
		_, err := os.Stat(filepath.Join(k.Tracefs, "events", n.Name, "id"))
		return err == nil, nil
	case FunctionPart:
		if !k.read {
			k.read = true
			k.syms, k.symErr = textSymbols(filepath.Join(k.procDir(), "kallsyms"))
		}
		if k.symErr != nil {
			return false, k.symErr
		}
		for _, s := range k.syms {
			if strings.Contains(s, n.Name) {
				return true, nil
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("probe: unknown need kind %q", n.Kind)
}

func (k *Kernel) procDir() string {
	if k.Proc == "" {
		return "/proc"
	}
	return k.Proc
}

// maxKallsyms bounds what is read of /proc/kallsyms: well above what a
// distribution kernel's holds, so only a broken guest's is cut short.
const maxKallsyms = 64 << 20

// textSymbols reads the names of kallsyms' text symbols (t or T).
func textSymbols(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("probe: %w (CONFIG_KALLSYMS)", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(&limited{f: f, left: maxKallsyms})
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 3 && (fields[1] == "t" || fields[1] == "T") {
			out = append(out, fields[2])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("probe: read %s: %w", path, err)
	}
	return out, nil
}

type limited struct {
	f    *os.File
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errors.New("larger than the bound")
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	return n, err
}

// TreeLacks returns the needs a kernel source tree visibly lacks, before
// anything is built: a tracepoint no header under include/trace/events
// defines. Function names are left to the guest's probe (a function can
// be renamed by a macro, inlined or compiled out), so they never count
// as lacking here. A tree without trace headers is an error: it is not
// a kernel tree.
func TreeLacks(tree string, needs []Need) ([]Need, error) {
	var lacks []Need
	for _, n := range needs {
		if n.Kind != Tracepoint {
			continue
		}
		ok, err := treeDefinesEvent(tree, n.Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			lacks = append(lacks, n)
		}
	}
	return lacks, nil
}

// eventsDir holds a tree's tracepoint headers; maxEventsHeader bounds
// one (the largest are tens of KiB).
const (
	eventsDir       = "include/trace/events"
	maxEventsHeader = 4 << 20
)

// treeDefinesEvent looks for TRACE_EVENT(event or DEFINE_EVENT(class,
// event in the tree's include/trace/events headers.
func treeDefinesEvent(tree, name string) (bool, error) {
	_, event, ok := strings.Cut(name, "/")
	if !ok {
		event = name
	}
	re := regexp.MustCompile(`\b(TRACE_EVENT\w*\(\s*` + regexp.QuoteMeta(event) + `\s*,|DEFINE_EVENT\w*\(\s*\w+\s*,\s*` + regexp.QuoteMeta(event) + `\s*,)`)
	headers, err := filepath.Glob(filepath.Join(tree, "include/trace/events/*.h"))
	if err != nil {
		return false, err
	}
	if len(headers) == 0 {
		// Every kernel tree has them: without any, every tracepoint
		// would count as defined, and a tree that is no kernel at all
		// would pass (hostile audit).
		return false, fmt.Errorf("probe: %s has no include/trace/events/*.h: not a kernel source tree, its tracepoints cannot be checked", tree)
	}
	for _, h := range headers {
		// Read as any file of a tree is: a header that is a link (to
		// /dev/zero, or out of the tree) is refused, not read.
		data, err := regularfile.ReadBelow(tree, eventsDir+"/"+filepath.Base(h), maxEventsHeader)
		if err != nil {
			return false, fmt.Errorf("probe: %w", err)
		}
		if re.Match(data) {
			return true, nil
		}
	}
	return false, nil
}
