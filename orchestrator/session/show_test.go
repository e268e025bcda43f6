package session

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/diffreport"
	"github.com/kregress/kregress/results/store/storetest"
	"github.com/kregress/kregress/results/verdict"
)

func TestCheckRequest(t *testing.T) {
	if err := CheckRequest(Request{Alpha: 0.05, Resume: 12}); err != nil {
		t.Fatal(err)
	}
	for _, req := range []Request{{Alpha: 1.5}, {Alpha: 0.05, Resume: -1}} {
		if err := CheckRequest(req); !usage.Is(err) {
			t.Errorf("%+v: %v, want a usage error", req, err)
		}
	}
}

// Show prints the run's diff through the command's printer, judged with
// the options given, and says whether a candidate fails it; without a
// debug pass nothing else runs.
func TestShowWithoutDebugPass(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Debug.Pass = "off"
	sel := &variants.Selection{Family: &patches.Family{Name: "f"}, Variants: []*patches.Variant{{Name: "base"}, {Name: "patched"}}}
	failing := &compare.Diff{
		Variants: []*compare.Variant{{Name: "base"}, {Name: "patched"}},
		Metrics:  map[string][]compare.Metric{"patched": {{Name: "reads_per_sec", Primary: true, Verdict: verdict.Regression}}},
	}
	var gotID int64
	var gotOpts compare.Options
	out := Output{W: io.Discard, Diff: func(_ context.Context, _ results.Store, id int64, opts compare.Options, w io.Writer) ([]*compare.Diff, error) {
		gotID, gotOpts = id, opts
		return []*compare.Diff{failing}, nil
	}}
	s := &Session{Report: func(string, ...any) {}}
	j, err := s.Show(context.Background(), cfg, sel, 7, compare.Options{Alpha: 0.01}, out)
	if err != nil {
		t.Fatal(err)
	}
	if gotID != 7 || gotOpts.Alpha != 0.01 || len(j.Diffs) != 1 || j.Diffs[0] != failing || !j.Flagged {
		t.Fatalf("diff of run %d at alpha %v: %+v", gotID, gotOpts.Alpha, j)
	}
	boom := errors.New("boom")
	out.Diff = func(context.Context, results.Store, int64, compare.Options, io.Writer) ([]*compare.Diff, error) {
		return nil, boom
	}
	if _, err := s.Show(context.Background(), cfg, sel, 7, compare.Options{}, out); !errors.Is(err, boom) {
		t.Fatalf("a diff that fails: %v", err)
	}
}

// Preview names each variant's role and source, and its planned kernel
// only when there are plans.
func TestPreview(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kernel.GitTree = "/src/linux"
	fix := &patches.Patch{Name: "fix.patch"}
	sel := &variants.Selection{Family: &patches.Family{Name: "f", Baseline: "base"}, Variants: []*patches.Variant{{Name: "base"}, {Name: "topic", Ref: "topic", Files: []*patches.Patch{fix}}}}
	p := Preview(cfg, sel, nil)
	if p.Family != "f" || len(p.Variants) != 2 || !p.Variants[0].Baseline || p.Variants[1].Baseline {
		t.Fatalf("%+v", p)
	}
	if p.Variants[0].Source != "the configured base" || p.Variants[1].Source != "ref topic of /src/linux" || p.Variants[1].Patches[0] != fix || p.Variants[0].Kernel != nil {
		t.Fatalf("%+v", p.Variants)
	}
	p = Preview(cfg, sel, []pipeline.BuildPlan{{Key: "k0", Cached: true}, {Key: "k1", Source: "/src/linux@topic"}})
	if k := p.Variants[1].Kernel; k == nil || k.Key != "k1" || k.Cached || !strings.HasSuffix(k.Source, "@topic") {
		t.Fatalf("planned: %+v", p.Variants[1].Kernel)
	}
}

// WriteConfig is the commented YAML, then the selection as comments:
// every line after the YAML is one, so the whole still loads as YAML.
func TestWriteConfig(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	sel := &variants.Selection{Family: &patches.Family{Name: "f", Baseline: "base"}, Variants: []*patches.Variant{{Name: "base"}, {Name: "topic"}}}
	var b strings.Builder
	if err := WriteConfig(&b, cfg, sel); err != nil {
		t.Fatal(err)
	}
	yaml, tail, ok := strings.Cut(b.String(), cfg.CommentedYAML()+"\n")
	if !ok || yaml != "" || !strings.Contains(tail, "# experiment "+cfg.Experiment+": family f") || !strings.Contains(tail, "topic") {
		t.Fatalf("WriteConfig:\n%s", b.String())
	}
	for _, l := range strings.Split(strings.TrimSuffix(tail, "\n"), "\n") {
		if !strings.HasPrefix(l, "# ") {
			t.Errorf("a selection line that is not a YAML comment: %q", l)
		}
	}
}

// Experiment checks before it opens the store: a refused experiment
// never creates one.
func TestExperimentChecksBeforeOpening(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opened := errors.New("opened")
	req := Request{Alpha: 0.05, Gate: true}
	env := Env{Open: func(context.Context, string) (results.Store, error) { return nil, opened }, Out: Output{W: io.Discard}}
	s := &Session{Report: func(string, ...any) {}}
	if _, err := s.Experiment(context.Background(), cfg, sel, req, env); !errors.Is(err, opened) {
		t.Fatalf("a judgeable experiment: %v, want the store opened", err)
	}
	cfg.Repetitions = 1
	if _, err := s.Experiment(context.Background(), cfg, sel, req, env); !usage.Is(err) || errors.Is(err, opened) {
		t.Fatalf("one repetition: %v, want a usage error before the store is opened", err)
	}
}

// Request.Run checks run's own flags before it resolves the experiment,
// resolves it with the command's selection, and measures into the store
// the command opens.
func TestRequestRun(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	var selected int
	opened, refused := errors.New("opened"), errors.New("no such patch")
	env := Env{
		Select: func(cfg *config.Config) (*variants.Selection, error) { selected++; return variants.Resolve(cfg) },
		Open:   func(context.Context, string) (results.Store, error) { return nil, opened },
		Report: func(string, ...any) {}, Out: Output{W: io.Discard},
	}
	ctx := context.Background()
	if err := (Request{Alpha: 0.05, Resume: -1}).Run(ctx, cfg, env); !usage.Is(err) || selected != 0 {
		t.Fatalf("--resume -1: %v, %d selections; want a usage error before the experiment is resolved", err, selected)
	}
	if err := (Request{Alpha: 0.05}).Run(ctx, cfg, env); !errors.Is(err, opened) || selected != 1 {
		t.Fatalf("a judgeable experiment: %v, %d selections; want it resolved once and the store opened", err, selected)
	}
	env.Select = func(*config.Config) (*variants.Selection, error) { return nil, refused }
	if err := (Request{Alpha: 0.05}).Run(ctx, cfg, env); !errors.Is(err, refused) {
		t.Fatalf("a selection refused: %v", err)
	}
}

// An Output without a printer shows each run as kregress diff's table.
func TestShowPrintsDiffsTable(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Debug.Pass = "off"
	store := storetest.SQLite(t)
	storetest.AddReadsRun(t, store, "repetitions: 6\n", []string{"stock", "fast"}, 6)
	sel := &variants.Selection{Family: &patches.Family{Name: "f"}, Variants: []*patches.Variant{{Name: "stock"}, {Name: "fast"}}}
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	var shown, table bytes.Buffer
	j, err := (&Session{Store: store}).Show(context.Background(), cfg, sel, 1, opts, Output{W: &shown})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := diffreport.PrintRun(context.Background(), store, 1, opts, &table); err != nil {
		t.Fatal(err)
	}
	if shown.String() != table.String() || len(j.Diffs) != 1 || j.Diffs[0].Baseline != "stock" {
		t.Errorf("shown:\n%s\nwant diff 1's table:\n%s", shown.String(), table.String())
	}
}

// kregress run of a family not marked changes_locking (a --patch run's
// quick family) says it had no debug pass and how to ask for one; a run
// with debug.pass off, or nightly's (no auto), says nothing.
func TestShowSaysNoDebugPass(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	sel := &variants.Selection{Family: &patches.Family{Name: variants.QuickFamily}, Variants: []*patches.Variant{{Name: "base"}, {Name: "patched"}}}
	quiet := func(context.Context, results.Store, int64, compare.Options, io.Writer) ([]*compare.Diff, error) {
		return []*compare.Diff{{Variants: []*compare.Variant{{Name: "base"}, {Name: "patched"}}}}, nil
	}
	for _, c := range []struct {
		pass string
		auto bool
		says bool
	}{{"auto", true, true}, {"off", true, false}, {"auto", false, false}} {
		cfg.Debug.Pass = c.pass
		var shown bytes.Buffer
		if _, err := (&Session{AutoDebug: c.auto}).Show(context.Background(), cfg, sel, 7, compare.Options{}, Output{W: &shown, Diff: quiet}); err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(shown.String(), "no debug pass (lockdep kernels)") && strings.Contains(shown.String(), "--debug.pass on"); said != c.says {
			t.Errorf("debug.pass %s, auto %v: said %q", c.pass, c.auto, shown.String())
		}
	}
}
