package contention

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/probe"
)

// Flag is kagent run's option naming the locks whose contention a run
// measures, before the workload's name: `kagent run -lock-contention
// cgroup_mutex,css_set_lock rstat ...`; UnderFlag names functions whose
// callers' waits for any lock it measures.
const (
	Flag      = "-lock-contention"
	UnderFlag = "-lock-contention-under"
)

// ParseLocks reads Flag's (or UnderFlag's) value: comma-separated
// kernel symbols, each a valid name, none twice.
func ParseLocks(value string) ([]string, error) {
	var locks []string
	for _, l := range strings.Split(value, ",") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if err := CheckName(l); err != nil {
			return nil, err
		}
		for _, have := range locks {
			if strings.EqualFold(strings.ReplaceAll(have, ".", "_"), strings.ReplaceAll(l, ".", "_")) {
				return nil, fmt.Errorf("lock %s named twice", l)
			}
		}
		locks = append(locks, l)
	}
	if len(locks) == 0 {
		return nil, errors.New("name at least one kernel symbol")
	}
	return locks, nil
}

// Measure runs run with the contention of locks (and of any lock under
// the functions of under) recorded over the whole of it, and adds each lock's metrics to its document: those of a lock
// the kernel cannot measure (no tracepoints, no such symbol) as
// unavailable with the reason, never as 0. With no locks it is run
// alone.
func Measure(ctx context.Context, fs ftrace.FS, kern *probe.Kernel, locks, under []string, run func(context.Context) (*agentproto.Document, error)) (*agentproto.Document, error) {
	if len(locks) == 0 && len(under) == 0 {
		return run(ctx)
	}
	r, unavailable, err := Setup(fs, kern, locks, under)
	if err != nil {
		return nil, fmt.Errorf("lock contention: %w", err)
	}
	if r != nil {
		if err := r.Start(); err != nil {
			return nil, fmt.Errorf("lock contention: %w", err)
		}
	}
	doc, err := run(ctx)
	if err != nil {
		if r != nil {
			_ = r.inst.Write("tracing_on", "0") // the run's error is the one to report
		}
		return nil, err
	}
	if r != nil {
		ms, warnings, err := r.Stop()
		if err != nil {
			return nil, fmt.Errorf("lock contention: %w", err)
		}
		doc.Metrics = append(doc.Metrics, ms...)
		doc.Warnings = append(doc.Warnings, warnings...)
	}
	doc.Unavailable = append(doc.Unavailable, unavailable...)
	return doc, nil
}
