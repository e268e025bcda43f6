// Package export moves runs between stores and tools: a run with all its
// results to one JSON file (and back), and its metrics in the Go benchmark
// format so benchstat can check kregress's statistics.
package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/names"
	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/noise"
	"golang.org/x/perf/benchfmt"
)

// Schema versions the export file.
const Schema = "kregress.export/v1"

// File is one exported run.
type File struct {
	Schema  string       `json:"schema"`
	Run     Run          `json:"run"`
	Results []Result     `json:"results"`
	Host    results.Host `json:"host"`
	Saved   time.Time    `json:"saved_at"`
}

// Run is results.Run without its store-local ID semantics.
type Run struct {
	ID         int64             `json:"id"` // in the store it came from
	Experiment string            `json:"experiment"`
	Family     string            `json:"family"`
	Baseline   string            `json:"baseline"`
	Variants   []string          `json:"variants"`
	StartedAt  time.Time         `json:"started_at"`
	FinishedAt time.Time         `json:"finished_at"`
	Status     results.RunStatus `json:"status"`
	Error      string            `json:"error"`
	Config     string            `json:"config"`
}

// Result is results.Result with the agent document kept as JSON.
type Result struct {
	Variant        string                      `json:"variant"`
	Repetition     int                         `json:"repetition"`
	Seq            int                         `json:"seq"`
	Status         results.Status              `json:"status"`
	Error          string                      `json:"error"`
	StartedAt      time.Time                   `json:"started_at"`
	FinishedAt     time.Time                   `json:"finished_at"`
	Provenance     results.Provenance          `json:"provenance"`
	Metrics        []agentproto.Metric         `json:"metrics"`
	Document       json.RawMessage             `json:"document,omitempty"`
	IrqsoffWorstUS float64                     `json:"irqsoff_worst_us"`
	IrqsoffHolder  string                      `json:"irqsoff_holder"`
	ArtifactDir    string                      `json:"artifact_dir,omitempty"`
	Selftests      []agentproto.SelftestResult `json:"selftests,omitempty"`
	Findings       []results.Finding           `json:"kernel_reports,omitempty"`
}

// Write exports run and its results.
func Write(w io.Writer, run *results.Run, rs []*results.Result) error {
	st, err := newStreamer()
	if err != nil {
		return err
	}
	f := File{Schema: Schema, Host: run.Host, Saved: time.Now().UTC(), Run: Run{
		ID: run.ID, Experiment: run.Experiment, Family: run.Family, Baseline: run.Baseline, Variants: run.Variants,
		StartedAt: run.StartedAt, FinishedAt: run.FinishedAt, Status: run.Status, Error: st.hold(run.Error), Config: st.hold(run.Config),
	}}
	for _, r := range rs {
		x := Result{Variant: r.Variant, Repetition: r.Repetition, Seq: r.Seq, Status: r.Status, Error: st.hold(r.Error),
			StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Provenance: r.Provenance, Metrics: r.Metrics,
			IrqsoffWorstUS: r.IrqsoffWorstUS, IrqsoffHolder: r.IrqsoffHolder, ArtifactDir: r.ArtifactDir, Selftests: r.Selftests, Findings: r.Findings}
		if len(r.Document) > 0 && json.Valid(r.Document) {
			x.Document = r.Document
		}
		f.Results = append(f.Results, x)
	}
	// Not indented: indenting would rewrite the agent documents' bytes,
	// and an export must round-trip exactly. Written as json.Encoder
	// writes it, its long strings in pieces (a run's configuration and
	// errors are the strings an import can make as long as its cap).
	return st.write(w, f)
}

// MaxFileBytes bounds an export file: a run of a few hundred cells with
// their agent documents is a few MB; a file many times that is the
// wrong file or hostile. Decoding and storing one takes several times
// its size in memory (a file at the cap, one long string, about six),
// so the cap is what bounds an import's memory.
const MaxFileBytes = 64 << 20

// Read parses an export file strictly, decoding as it reads and
// refusing more than MaxFileBytes.
func Read(r io.Reader) (*File, error) {
	return read(regularfile.Cap(r, "export file", MaxFileBytes))
}

func read(r io.Reader) (*File, error) {
	src := &readErr{r: r}
	dec := json.NewDecoder(src)
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		if regularfile.IsTooLarge(err) {
			return nil, err
		}
		if src.err != nil {
			// The file could not be read: the host's problem.
			return nil, fmt.Errorf("export file: %w", err)
		}
		// It was read, and it is not an export: the user named the
		// wrong file.
		return nil, usage.Errorf("export file: not a kregress export (`kregress results export RUN -o FILE.json` writes one): %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if f.Schema != Schema {
		return nil, usage.Errorf("export file: schema %q, this kregress reads %q", f.Schema, Schema)
	}
	if err := f.checkNames(); err != nil {
		return nil, usage.Wrap(fmt.Errorf("export file: %w", err))
	}
	// A metric without a direction cannot be judged: refuse it here,
	// before it reaches a store, not at the first diff.
	for _, x := range f.Results {
		for _, m := range x.Metrics {
			switch m.Direction {
			case agentproto.HigherIsBetter, agentproto.LowerIsBetter, agentproto.Informational:
			default:
				return nil, usage.Errorf("export file: %s rep %d: metric %q has no direction (%q; want %q, %q or %q)", x.Variant, x.Repetition, m.Name, m.Direction, agentproto.HigherIsBetter, agentproto.LowerIsBetter, agentproto.Informational)
			}
		}
	}
	return &f, nil
}

// CheckFile says, without reading it, whether path can be an export
// file: one that does not exist, is not a regular file or is over
// MaxFileBytes is named as ReadFile would name it.
func CheckFile(path string) error {
	fh, err := open(path)
	if err != nil {
		return err
	}
	return fh.Close()
}

// open opens an export file, its errors said for the user.
func open(path string) (*os.File, error) {
	fh, err := regularfile.OpenCapped(path, MaxFileBytes)
	if err != nil {
		var nr *regularfile.NotRegularError
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, usage.Errorf("export file %s: no such file (`kregress results export RUN -o FILE.json` writes one)", path)
		case errors.As(err, &nr), regularfile.IsTooLarge(err):
			return nil, usage.Errorf("export file %w", err)
		}
		return nil, fmt.Errorf("export file %w", err)
	}
	return fh, nil
}

// readErr remembers a read error other than the end of the file, so a
// decoding error can be told from a file that could not be read.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// checkNames refuses a file whose experiment, family, variant or metric
// names are outside the one character set of names (internal/names):
// such a name never entered through kregress, and a store keeps a run's
// variants comma-joined (a variant "x,y" came back as two).
func (f *File) checkNames() error {
	if f.Run.Experiment != "" {
		if err := names.Check(names.Experiment, strings.TrimPrefix(f.Run.Experiment, noise.ExperimentPrefix)); err != nil {
			return err
		}
	}
	if f.Run.Family != "" {
		if err := names.Check(names.Family, f.Run.Family); err != nil {
			return err
		}
	}
	for _, v := range append([]string{f.Run.Baseline}, f.Run.Variants...) {
		if v == "" {
			continue
		}
		if err := names.Check(names.Variant, v); err != nil {
			return err
		}
	}
	for _, x := range f.Results {
		if err := names.Check(names.Variant, x.Variant); err != nil {
			return fmt.Errorf("result rep %d: %w", x.Repetition, err)
		}
		for _, m := range x.Metrics {
			if err := names.Check(names.Metric, m.Name); err != nil {
				return fmt.Errorf("%s rep %d: %w", x.Variant, x.Repetition, err)
			}
		}
	}
	return nil
}

// ReadFile reads an export file from disk: a regular file of at most
// MaxFileBytes (a FIFO or a device is refused before any read, a larger
// file by its size, a file growing past the cap as it is read).
func ReadFile(path string) (*File, error) {
	fh, err := open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := read(regularfile.Cap(fh, path, MaxFileBytes))
	if err != nil {
		if regularfile.IsTooLarge(err) {
			return nil, usage.Errorf("export file %w", err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Runs converts the file back into store types (IDs left zero).
func (f *File) Runs() (*results.Run, []*results.Result) {
	run := &results.Run{ID: f.Run.ID, Experiment: f.Run.Experiment, Family: f.Run.Family, Baseline: f.Run.Baseline,
		Variants: f.Run.Variants, StartedAt: f.Run.StartedAt, FinishedAt: f.Run.FinishedAt, Status: f.Run.Status,
		Error: f.Run.Error, Config: f.Run.Config, Host: f.Host}
	var rs []*results.Result
	for _, x := range f.Results {
		rs = append(rs, &results.Result{RunID: f.Run.ID, Variant: x.Variant, Repetition: x.Repetition, Seq: x.Seq, Status: x.Status,
			Error: x.Error, StartedAt: x.StartedAt, FinishedAt: x.FinishedAt, Provenance: x.Provenance, Metrics: x.Metrics,
			Document: []byte(x.Document), IrqsoffWorstUS: x.IrqsoffWorstUS, IrqsoffHolder: x.IrqsoffHolder, ArtifactDir: x.ArtifactDir, Selftests: x.Selftests, Findings: x.Findings})
	}
	// A file written by an older kregress or another tool may hold
	// control characters (JSON's \u001b decodes to a raw ESC): escaped
	// here, before a diff renders them or an import stores them.
	results.EscapeRun(run)
	for _, r := range rs {
		results.EscapeResult(r)
	}
	return run, rs
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// WriteBenchfmt writes the ok results in the Go benchmark format, one line
// per result named Benchmark<Family>/variant=<v>, each metric as a unit:
// `benchstat -col /variant FILE` then compares the variants. The result
// lines are benchfmt.Writer's; the file's configuration is written ahead
// of them as one block without the blank line the Writer puts after a
// configuration, so files exported before it was used read the same.
// The first write error is returned.
func WriteBenchfmt(w io.Writer, run *results.Run, rs []*results.Result) error {
	if run.Family == "" {
		return fmt.Errorf("run %d has no family to name its benchmarks after", run.ID)
	}
	if _, err := fmt.Fprintf(w, "goos: linux\ngoarch: amd64\npkg: kregress/%s\nkregress-run: %d\n", nonName.ReplaceAllString(run.Experiment, "_"), run.ID); err != nil {
		return fmt.Errorf("run %d: benchfmt: %w", run.ID, err)
	}
	name := strings.ToUpper(run.Family[:1]) + nonName.ReplaceAllString(run.Family[1:], "_")
	bw := benchfmt.NewWriter(w)
	n := 0
	for _, r := range rs {
		if !r.Status.OK() || len(r.Metrics) == 0 {
			continue
		}
		res := &benchfmt.Result{Name: benchfmt.Name(name + "/variant=" + nonName.ReplaceAllString(r.Variant, "_")), Iters: 1}
		for _, m := range r.Metrics {
			res.Values = append(res.Values, benchfmt.Value{Value: m.Value, Unit: nonName.ReplaceAllString(m.Name, "_")})
		}
		if err := bw.Write(res); err != nil {
			return fmt.Errorf("run %d: benchfmt: %w", run.ID, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("run %d has no ok result to export", run.ID)
	}
	return nil
}
