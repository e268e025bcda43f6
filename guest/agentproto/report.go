// Package agentproto is the versioned JSON document that kagent prints after a
// workload and that the orchestrator parses. It is the only contract between
// guest and host, so it is decoded strictly: an unknown field or another
// schema version is an error, never a silently empty metric.
package agentproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/kregress/kregress/internal/names"
	"github.com/kregress/kregress/internal/safetext"
)

// Schema names this document's version. Bump it on any incompatible change;
// the orchestrator refuses documents of another version.
const Schema = "kregress.agent/v1"

// Direction says which way a metric gets better.
type Direction string

const (
	HigherIsBetter Direction = "higher"
	LowerIsBetter  Direction = "lower"
	// Informational metrics are stored and shown but never called a
	// regression or an improvement (e.g. how many OOM kills happened).
	Informational Direction = "info"
)

// Document is what `kagent run WORKLOAD` prints on stdout.
type Document struct {
	Schema       string            `json:"schema"`
	AgentVersion string            `json:"agent_version"`
	Workload     string            `json:"workload"`
	Params       map[string]string `json:"params"`
	Guest        Guest             `json:"guest"`
	DurationSec  float64           `json:"duration_sec"`
	Metrics      []Metric          `json:"metrics"`
	// Histograms are power-of-2 latency histograms as the seeds report
	// them, keyed by name (e.g. "read_latency_us").
	Histograms map[string]Histogram `json:"histograms,omitempty"`
	Irqsoff    *Irqsoff             `json:"irqsoff,omitempty"`
	LockHolds  *LockHolds           `json:"lock_holds,omitempty"`
	// WindowRates: per metric taken from windows of the run, each
	// window's value (the metric is a summary of them, one per boot).
	WindowRates map[string][]float64 `json:"window_rates,omitempty"`
	// Warnings are things the agent noticed that make the numbers weaker
	// but not wrong (e.g. trace events lost to a full ring buffer).
	Warnings []string `json:"warnings,omitempty"`
	// Unavailable are the workload's metrics this kernel cannot produce
	// (guest/probe): not measured, not zero, and not a failure.
	Unavailable []Unavailable `json:"unavailable,omitempty"`
}

// Unavailable is a metric the workload would report on a kernel that
// offered what it needs, and why this one does not ("unavailable on this
// kernel: no tracepoint cgroup:cgroup_rstat_locked").
type Unavailable struct {
	Metric string `json:"metric"`
	Reason string `json:"reason"`
}

// Guest is what the guest kernel reports about itself.
type Guest struct {
	KernelRelease string `json:"kernel_release"`
	KernelVersion string `json:"kernel_version"`
	Cmdline       string `json:"cmdline"`
	CPUsOnline    int    `json:"cpus_online"`
	CPUsPossible  int    `json:"cpus_possible"`
	MemTotalKB    int64  `json:"mem_total_kb"`
}

// Metric is one measured figure of one run.
type Metric struct {
	Name      string    `json:"name"`
	Unit      string    `json:"unit"`
	Direction Direction `json:"direction"`
	Value     float64   `json:"value"`
}

// Histogram is a power-of-2 bucketed histogram: bucket i counts values in
// [2^(i-1), 2^i) of Unit, bucket 0 counts values below 1.
type Histogram struct {
	Unit    string   `json:"unit"`
	Buckets []uint64 `json:"buckets"`
}

// Section is one irqs-off critical section as the irqsoff tracer saw it.
type Section struct {
	LatencyUS int64    `json:"latency_us"`
	Task      string   `json:"task,omitempty"`
	CPU       int      `json:"cpu"`
	StartedAt string   `json:"started_at"`
	EndedAt   string   `json:"ended_at"`
	Stack     []string `json:"stack,omitempty"`
	// Holder is a short name for the code that held irqs off: the first
	// stack frame or end point that is not a generic lock/irq helper.
	Holder string `json:"holder"`
}

// Irqsoff holds the irqsoff tracer's findings: the worst section of the whole
// run and the worst of every sampling window.
type Irqsoff struct {
	WindowSec float64   `json:"window_sec"`
	Worst     *Section  `json:"worst,omitempty"`
	Windows   []Section `json:"windows"`
	// WorstTrace is the tracer's text for the worst section, for humans.
	WorstTrace string `json:"worst_trace,omitempty" safetext:"text"`
}

// LockHolds summarises how long a lock was held, measured from a pair of
// tracepoints (e.g. cgroup:cgroup_rstat_locked / cgroup_rstat_unlock).
type LockHolds struct {
	Lock   string  `json:"lock"`
	Count  int64   `json:"count"`
	P50US  float64 `json:"p50_us"`
	P99US  float64 `json:"p99_us"`
	MaxUS  float64 `json:"max_us"`
	Lost   int64   `json:"lost_events"`
	Source string  `json:"source"`
}

// Encode writes d as indented JSON.
func Encode(w io.Writer, d *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// UnmarshalJSON decodes a metric strictly: its value must be a JSON number
// that is a finite float64. encoding/json would refuse a string or 1e999
// too, but without naming the metric; and a value that is not finite must
// never reach the statistics (go-moremath's U test allocates without bound
// on NaN).
func (m *Metric) UnmarshalJSON(b []byte) error {
	var raw struct {
		Name      string          `json:"name"`
		Unit      string          `json:"unit"`
		Direction Direction       `json:"direction"`
		Value     json.RawMessage `json:"value"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		if raw.Name != "" {
			return fmt.Errorf("metric %q: %w", safetext.Line(raw.Name), err)
		}
		return fmt.Errorf("metric: %w", err)
	}
	v, err := parseFinite(raw.Value)
	if err != nil {
		return fmt.Errorf("metric %q: %w", safetext.Line(raw.Name), err)
	}
	*m = Metric{Name: raw.Name, Unit: raw.Unit, Direction: raw.Direction, Value: v}
	return nil
}

// maxNumberLen bounds a number's text: no float64 needs more than ~25
// characters, and ParseFloat's cost grows with the text.
const maxNumberLen = 64

// parseFinite parses a JSON number into a finite float64.
func parseFinite(raw json.RawMessage) (float64, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return 0, errors.New("no value")
	}
	if t[0] != '-' && (t[0] < '0' || t[0] > '9') {
		return 0, fmt.Errorf("value %s is not a number", safetext.Line(shorten(string(t))))
	}
	if len(t) > maxNumberLen {
		return 0, fmt.Errorf("value %s is longer than %d characters", safetext.Line(shorten(string(t))), maxNumberLen)
	}
	v, err := strconv.ParseFloat(string(t), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %s is not a finite float64", t)
	}
	return v, nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// checkFinite refuses a NaN or infinite float64 anywhere in d: JSON cannot
// carry one, but a Document built by other means (tests, future
// encodings) must meet the same bar before it reaches the statistics.
func (d *Document) checkFinite() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	for _, m := range d.Metrics {
		if bad(m.Value) {
			return fmt.Errorf("metric %q: value %v is not finite", m.Name, m.Value)
		}
	}
	for name, rates := range d.WindowRates {
		for _, v := range rates {
			if bad(v) {
				return fmt.Errorf("window rates of %q: value %v is not finite", name, v)
			}
		}
	}
	if bad(d.DurationSec) {
		return fmt.Errorf("duration_sec %v is not finite", d.DurationSec)
	}
	if d.Irqsoff != nil && bad(d.Irqsoff.WindowSec) {
		return fmt.Errorf("irqsoff window_sec %v is not finite", d.Irqsoff.WindowSec)
	}
	if l := d.LockHolds; l != nil {
		for _, v := range []float64{l.P50US, l.P99US, l.MaxUS} {
			if bad(v) {
				return fmt.Errorf("lock holds of %q: value %v is not finite", l.Lock, v)
			}
		}
	}
	return nil
}

// decodeStrict parses exactly one JSON document into a T, rejecting
// unknown fields, trailing data and a schema other than schema (what
// schemaOf reads); what names the document in errors. Every string the
// guest sent is escaped before anything uses it.
func decodeStrict[T any](data []byte, what, schema string, schemaOf func(*T) string) (*T, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d T
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: trailing data after the JSON document", what)
	}
	safetext.Strings(&d)
	if got := schemaOf(&d); got != schema {
		return nil, fmt.Errorf("%s: %w: got %q, want %q", what, ErrSchema, got, schema)
	}
	return &d, nil
}

// ErrSchema is wrapped by Decode and DecodeSelftests when the document is
// of another version.
var ErrSchema = errors.New("unsupported agent document schema")

// Decode parses exactly one document, rejecting unknown fields, trailing
// data, another schema version and documents that carry no metric.
func Decode(data []byte) (*Document, error) {
	d, err := decodeStrict(data, "agent document", Schema, func(d *Document) string { return d.Schema })
	if err != nil {
		return nil, err
	}
	if d.Workload == "" {
		return nil, fmt.Errorf("agent document: no workload name")
	}
	if len(d.Metrics) == 0 {
		return nil, fmt.Errorf("agent document: workload %q reported no metrics", d.Workload)
	}
	seen := map[string]bool{}
	for _, m := range d.Metrics {
		if m.Name == "" {
			return nil, fmt.Errorf("agent document: a metric has no name")
		}
		if err := names.Check(names.Metric, m.Name); err != nil {
			return nil, fmt.Errorf("agent document: %w", err)
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("agent document: metric %q reported twice", m.Name)
		}
		seen[m.Name] = true
		switch m.Direction {
		case HigherIsBetter, LowerIsBetter, Informational:
		default:
			return nil, fmt.Errorf("agent document: metric %q has unknown direction %q", m.Name, m.Direction)
		}
	}
	for _, u := range d.Unavailable {
		if u.Metric == "" {
			return nil, fmt.Errorf("agent document: an unavailable metric has no name")
		}
		if err := names.Check(names.Metric, u.Metric); err != nil {
			return nil, fmt.Errorf("agent document: unavailable %w", err)
		}
		if seen[u.Metric] {
			return nil, fmt.Errorf("agent document: metric %q is both reported and unavailable (or unavailable twice)", u.Metric)
		}
		seen[u.Metric] = true
	}
	if err := d.checkFinite(); err != nil {
		return nil, fmt.Errorf("agent document: %w", err)
	}
	return d, nil
}

// Metric returns the named metric and whether it is present.
func (d *Document) Metric(name string) (Metric, bool) {
	for _, m := range d.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}
