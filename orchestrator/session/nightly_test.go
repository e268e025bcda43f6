package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/filelock"
	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

// okRunner stores a complete run of every variant, each cell ok.
type okRunner struct{ store results.Store }

func (r okRunner) Run(ctx context.Context, cfg *config.Config, sel *variants.Selection) (int64, error) {
	var names []string
	for _, v := range sel.Variants {
		names = append(names, v.Name)
	}
	run := &results.Run{Experiment: cfg.Experiment, Family: cfg.Family, Baseline: names[0], Variants: names, Status: results.RunRunning, StartedAt: time.Now(), Config: "x: 1"}
	if err := r.store.CreateRun(ctx, run); err != nil {
		return 0, err
	}
	seq := 0
	for rep := 1; rep <= cfg.Repetitions; rep++ {
		for _, v := range names {
			seq++
			c := &results.Result{RunID: run.ID, Variant: v, Repetition: rep, Seq: seq, Status: results.StatusOK,
				Metrics: []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 1000 + float64(seq%7)}}}
			if err := r.store.AddResult(ctx, c); err != nil {
				return run.ID, err
			}
		}
	}
	return run.ID, r.store.FinishRun(ctx, run.ID, results.RunComplete, "")
}

func (okRunner) Resume(context.Context, *config.Config, *variants.Selection, int64) error {
	return errors.New("nothing to resume")
}

// testNightly is a nightly of experiments on a store of its own, its
// outputs recorded.
func testNightly(t *testing.T, experiments ...string) (*Nightly, *config.Config, func() int) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CacheDir = t.TempDir()
	cfg.Store = filepath.Join(t.TempDir(), "k.db")
	stderr := new(bytes.Buffer)
	// How often the night's file was written: Stderr names each write.
	published := func() int { return strings.Count(stderr.String(), "kregress: wrote ") }
	nn := &Nightly{Settings: NightSettings{Alpha: 0.05, GreyUpper: 0.2}, Experiments: experiments,
		Load: func(e string) (*config.Config, error) { c, _, err := config.Load(e, nil); return c, err },
		Open: func(ctx context.Context, spec string) (results.Store, error) {
			s, err := store.OpenSQLite(spec)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		Stdout: new(bytes.Buffer), Format: format.NightTable, Stderr: stderr,
		Files: []flagkit.Output{{Format: string(format.NightJSON), Path: filepath.Join(t.TempDir(), "night.json")}}}
	return nn, cfg, published
}

// A night prints each experiment's table as it is judged, publishes its
// outputs and appends its summary to $GITHUB_STEP_SUMMARY once and,
// with nothing handed off, runs no bisect.
func TestNightlyRun(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	nn, cfg, published := testNightly(t, "rstat-relock", "pcpu-execve")
	nn.Open = withRunner(nn, nn.Open)
	var said []string
	nn.Bisect, nn.Report = true, func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }
	night, err := nn.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(night) != 2 || nightreport.Worst(night) != verdict.FirstNight {
		t.Fatalf("night: %d result(s), %s", len(night), nightreport.Worst(night))
	}
	out := nn.Stdout.(*bytes.Buffer).String()
	if !strings.Contains(out, "rstat-relock") || !strings.Contains(out, "pcpu-execve") {
		t.Errorf("stdout lacks an experiment's table:\n%s", out)
	}
	bisects := slices.ContainsFunc(said, func(l string) bool { return strings.Contains(l, "nightly --bisect") })
	if published() != 1 || bisects {
		t.Errorf("published %d time(s), bisected: %v; want the outputs once and no bisect:\n%s", published(), bisects, strings.Join(said, "\n"))
	}
	if data, err := os.ReadFile(nn.Files[0].Path); err != nil || !strings.Contains(string(data), "pcpu-execve") {
		t.Errorf("-o json: %v\n%s", err, data)
	}
	var md bytes.Buffer
	if err := format.WriteNightMarkdown(&md, night); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(summary); string(got) != md.String() {
		t.Errorf("$GITHUB_STEP_SUMMARY:\n%s\nwant the night's Markdown once:\n%s", got, md.String())
	}
	// Another format is printed whole, once.
	nn.Stdout, nn.Format = new(bytes.Buffer), format.NightJSON
	if _, err := nn.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if out := nn.Stdout.(*bytes.Buffer).String(); !strings.HasPrefix(strings.TrimSpace(out), "[") && !strings.HasPrefix(strings.TrimSpace(out), "{") {
		t.Errorf("-f json printed:\n%s", out)
	}
}

// withRunner makes nn's night measure through okRunner on the store
// open opens.
func withRunner(nn *Nightly, open func(context.Context, string) (results.Store, error)) func(context.Context, string) (results.Store, error) {
	return func(ctx context.Context, spec string) (results.Store, error) {
		s, err := open(ctx, spec)
		if err == nil {
			nn.Runner = okRunner{store: s}
		}
		return s, err
	}
}

// Nothing is measured, printed or published when the night is refused:
// an executor that would not wait for the cells or a negative
// --keep-artifacts before the lock, another nightly holding
// the lock, an experiment that does not load (a usage error).
func TestNightlyRefusals(t *testing.T) {
	ctx := context.Background()
	nn, cfg, published := testNightly(t, "rstat-relock")
	opened := 0
	open := nn.Open
	nn.Open = func(ctx context.Context, spec string) (results.Store, error) { opened++; return open(ctx, spec) }
	nn.Open = withRunner(nn, nn.Open)

	cfg.Executor.Detach = true
	if _, err := nn.Run(ctx, cfg); !usage.Is(err) || !strings.Contains(err.Error(), "nightly judges the cells' results") || opened != 0 {
		t.Errorf("a detached executor: %v, store opened %d time(s)", err, opened)
	}
	cfg.Executor.Detach = false
	nn.Settings.KeepArtifacts = -time.Hour
	if _, err := nn.Run(ctx, cfg); !usage.Is(err) || opened != 0 {
		t.Errorf("negative --keep-artifacts: %v, store opened %d time(s)", err, opened)
	}
	nn.Settings.KeepArtifacts = 0

	unlock, err := NightlyLock(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var held *filelock.HeldError
	_, err = nn.Run(ctx, cfg)
	if !errors.As(err, &held) || opened != 0 {
		t.Errorf("lock held: %v, store opened %d time(s)", err, opened)
	}
	// What kregress nightly prints ("kregress: " before it) and exits.
	if want := "another nightly is running on this store and cache: " + held.Holder; err.Error() != want || verdict.ExitOf(err) != verdict.ExitLocked {
		t.Errorf("lock held: %q, exit %d; want %q, exit 6", err, verdict.ExitOf(err), want)
	}
	unlock()

	nn.Experiments = []string{"no-such-experiment"}
	if _, err := nn.Run(ctx, cfg); !usage.Is(err) || !strings.Contains(err.Error(), "no-such-experiment") {
		t.Errorf("unknown experiment: %v", err)
	}
	if published() != 0 || nn.Stdout.(*bytes.Buffer).Len() != 0 {
		t.Errorf("a refused night published %d time(s) and printed %q", published(), nn.Stdout.(*bytes.Buffer).String())
	}
}
