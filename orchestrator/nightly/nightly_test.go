package nightly

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

// fakeRunner stores one run per call, with cells drawn from night(): the
// lock-hold metric's mean, and whether the kernel crashes or fails to build.
type fakeRunner struct {
	store    results.Store
	rng      *rand.Rand
	holdUS   float64
	status   results.Status
	buildErr error
	calls    int
	// interruptAfter > 0: Run stores that many cells, then stops as a
	// Ctrl-C would (the run interrupted).
	interruptAfter int
	resumed        []int64
	// edit, when set, changes each cell before it is stored.
	edit func(*results.Result)
	// fallback, when set, is what the real preparation writes into cfg
	// when it judges the workload's fallback primary metric.
	fallback string
}

// Resume stores the cells the run lacks and completes it.
func (f *fakeRunner) Resume(ctx context.Context, cfg *config.Config, sel *variants.Selection, runID int64) error {
	f.resumed = append(f.resumed, runID)
	have, _ := f.store.Results(ctx, runID)
	f.fill(ctx, runID, cfg.Repetitions, len(have), 0)
	return f.store.FinishRun(ctx, runID, results.RunComplete, "")
}

func (f *fakeRunner) Run(ctx context.Context, cfg *config.Config, sel *variants.Selection) (int64, error) {
	f.calls++
	if f.buildErr != nil {
		return 0, f.buildErr
	}
	if f.fallback != "" {
		cfg.PrimaryFallback, cfg.PrimaryMetrics = f.fallback, []string{"read_latency_p50_us"}
	}
	run := &results.Run{Experiment: cfg.Experiment, Family: "rstat", Baseline: "stock", Variants: []string{"stock", "per-cpu-relock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := f.store.CreateRun(ctx, run); err != nil {
		return 0, err
	}
	if f.interruptAfter > 0 {
		f.fill(ctx, run.ID, cfg.Repetitions, 0, f.interruptAfter)
		f.store.FinishRun(ctx, run.ID, results.RunInterrupted, "interrupted")
		return run.ID, context.Canceled
	}
	f.fill(ctx, run.ID, cfg.Repetitions, 0, 0)
	f.store.FinishRun(ctx, run.ID, results.RunComplete, "")
	return run.ID, nil
}

// fill stores the cells of a run from index skip on, at most limit (0: all).
func (f *fakeRunner) fill(ctx context.Context, runID int64, reps, skip, limit int) {
	i := 0
	for rep := 1; rep <= reps; rep++ {
		for _, v := range []string{"stock", "per-cpu-relock"} {
			i++
			if i <= skip || (limit > 0 && i > limit) {
				continue
			}
			r := &results.Result{RunID: runID, Variant: v, Repetition: rep, Seq: i, Status: results.StatusOK,
				Provenance: results.Provenance{Accel: "tcg", VCPUs: 2, MemoryMB: 1024, ConfigSHA256: "cafe", GitCommit: "0123456789abcdef0123456789abcdef01234567", GitDescribe: "v6.12-3-g0123456"},
				Metrics: []agentproto.Metric{
					{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 1000 * (1 + 0.05*f.rng.NormFloat64())},
					{Name: "rstat_lock_hold_p99_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: f.holdUS * (1 + 0.05*f.rng.NormFloat64())},
				}}
			if f.status != "" && v == "per-cpu-relock" {
				r.Status, r.Metrics = f.status, nil
				r.Error = "guest kernel panicked during the workload\n--- console tail ---\nKernel panic - not syncing: Fatal exception"
			}
			if f.edit != nil {
				f.edit(r)
			}
			f.store.AddResult(ctx, r)
		}
	}
}

func newNight(t *testing.T) (*Night, *fakeRunner) {
	store, err := store.OpenSQLite(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	fr := &fakeRunner{store: store, rng: rand.New(rand.NewPCG(1, 2)), holdUS: 50}
	n := &Night{Store: store, Runner: fr, Alpha: 0.05, GreyUpper: 0.2, ExtraRounds: 1, Who: "test",
		Load: func(e string) (*config.Config, error) {
			cfg, _, err := config.Load(e, nil)
			if err == nil {
				cfg.Repetitions = 8
			}
			return cfg, err
		}}
	return n, fr
}

// editLoaded makes n's Load apply edit to every config it loads.
func editLoaded(n *Night, edit func(*config.Config)) {
	load := n.Load
	n.Load = func(e string) (*config.Config, error) {
		cfg, err := load(e)
		if err == nil {
			edit(cfg)
		}
		return cfg, err
	}
}

func TestNights(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	exp := "rstat-every-n"

	first := n.Run(ctx, exp)
	if first.Outcome != verdict.FirstNight || first.Error != "" {
		t.Fatalf("night 1: %s %s", first.Outcome, first.Error)
	}
	marks, _ := n.Store.Marks(ctx, first.RunIDs[0])
	if len(marks) != 1 || marks[0].Kind != results.MarkGood {
		t.Fatalf("night 1 not marked good: %+v", marks)
	}

	same := n.Run(ctx, exp)
	if same.Outcome != verdict.NightPass || same.BaselineID != first.RunIDs[0] {
		t.Fatalf("night 2: %s against %d: %+v", same.Outcome, same.BaselineID, same.Cases)
	}
	for _, c := range same.Cases {
		if c.Status != nightreport.CasePass {
			t.Fatalf("night 2 case %+v", c)
		}
	}

	fr.holdUS = 70 // +40%: a commit slowed the measured path
	slow := n.Run(ctx, exp)
	if slow.Outcome != verdict.NightRegression {
		t.Fatalf("night 3: %s %+v", slow.Outcome, slow.Cases)
	}
	var junit, md bytes.Buffer
	format.WriteNightJUnit(&junit, []*nightreport.Result{first, same, slow})
	format.WriteNightMarkdown(&md, []*nightreport.Result{slow})
	for _, want := range []string{`<failure message="rstat_lock_hold_p99_us +`, `type="regression"`, `name="commit" value="0123456789abcdef0123456789abcdef01234567"`, `<skipped message="no good night of rstat-every-n`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("JUnit lacks %q:\n%s", want, junit.String())
		}
	}
	if !strings.Contains(md.String(), "**failure** per-cpu-relock rstat_lock_hold_p99_us: rstat_lock_hold_p99_us +") {
		t.Errorf("Markdown:\n%s", md.String())
	}
	// A regressed night is no baseline: the next normal night compares
	// with night 2, not night 3.
	fr.holdUS = 50
	if again := n.Run(ctx, exp); again.Outcome != verdict.NightPass || again.BaselineID != same.RunIDs[0] {
		t.Fatalf("night 4: %s against %d", again.Outcome, again.BaselineID)
	}

	fr.status = results.StatusCrashed
	crash := n.Run(ctx, exp)
	junit.Reset()
	format.WriteNightJUnit(&junit, []*nightreport.Result{crash})
	if crash.Outcome != verdict.KernelFailure || !strings.Contains(junit.String(), "<error message=\"per-cpu-relock rep 1: crashed") || !strings.Contains(junit.String(), "Kernel panic - not syncing") {
		t.Fatalf("crash night: %s\n%s", crash.Outcome, junit.String())
	}
	fr.status = ""

	fr.buildErr = &kernel.BuildError{Variant: "per-cpu-relock", Errors: []string{"kernel/cgroup/rstat.c:12: error: expected ';'"}, Err: errors.New("make: exit 2")}
	broken := n.Run(ctx, exp)
	if broken.Outcome != verdict.KernelFailure || !strings.Contains(broken.Error, "does not build") {
		t.Fatalf("build failure night: %s %s", broken.Outcome, broken.Error)
	}
	// The preparation's refusal (pipeline.Preflight): the family's patch
	// does not apply to tonight's tree.
	fr.buildErr = &pipeline.FitError{Family: "rstat", Err: &kernel.RefusedError{Variant: "stock", Err: errors.New("patch does not apply (hunk #1)")}}
	unfit := n.Run(ctx, exp)
	if unfit.Outcome != verdict.KernelFailure || !strings.Contains(unfit.Error, "does not fit the experiment (nothing was built)") || !strings.Contains(unfit.Error, "hunk #1") {
		t.Fatalf("refused night: %s %s", unfit.Outcome, unfit.Error)
	}
	fr.buildErr = nil

	if nightreport.Worst([]*nightreport.Result{same, slow, crash}) != verdict.KernelFailure {
		t.Fatal("worst outcome")
	}
}

// A metric in the grey zone gets one more round, pooled, at alpha split
// over the looks.
// A night whose preparation judged the workload's fallback primary
// metric says so in its stored verdict (hostile audit: it was a progress
// line only, which -q hid).
func TestNightRecordsTheFallbackPrimary(t *testing.T) {
	n, fr := newNight(t)
	fr.fallback = "primary metric: read_latency_p50_us instead of rstat_lock_hold_p50_us, which git tree /linux at main (6.1.192) cannot produce"
	r := n.Run(context.Background(), "rstat-every-n")
	if r.Error != "" || !slices.Contains(r.Notes, "warning: "+fr.fallback) {
		t.Fatalf("night: %s %s, notes %q: want the fallback's warning", r.Outcome, r.Error, r.Notes)
	}
	fr.fallback = ""
	if r := n.Run(context.Background(), "rstat-every-n"); slices.ContainsFunc(r.Notes, func(s string) bool { return strings.HasPrefix(s, "warning: primary metric") }) {
		t.Errorf("a night on its own primary warns: %q", r.Notes)
	}
}

func TestGreyZoneMeasuresAgain(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	n.GreyUpper = 1 // everything not significant is grey
	n.Run(ctx, "rstat-every-n")
	calls := fr.calls
	r := n.Run(ctx, "rstat-every-n")
	if fr.calls-calls != 2 || len(r.RunIDs) != 2 || !strings.Contains(strings.Join(r.Notes, "\n"), "grey zone") {
		t.Fatalf("runs %v, notes %q", r.RunIDs, r.Notes)
	}
}

func TestBadInput(t *testing.T) {
	n, fr := newNight(t)
	if err := n.Check([]string{"rstat-every-n", "no-such-experiment"}); err == nil || !strings.Contains(err.Error(), "no-such-experiment") {
		t.Fatalf("unknown experiment: %v", err)
	}
	ctx := context.Background()
	first := n.Run(ctx, "rstat-every-n")
	n.Baseline = first.RunIDs[0]
	if r := n.Run(ctx, "pcpu-execve"); r.Outcome != verdict.InfraFailure || !strings.Contains(r.Error, "is of experiment rstat-every-n, not pcpu-execve") {
		t.Fatalf("baseline of another experiment: %s %s", r.Outcome, r.Error)
	}
	// Tonight refuses that before anything runs, and a run the store
	// does not have; the run's own experiment alone may use it.
	calls := fr.calls
	for _, c := range []struct {
		baseline    int64
		experiments []string
		want        string
	}{{first.RunIDs[0], []string{"rstat-every-n", "pcpu-execve"}, "is a run of rstat-every-n, but tonight also runs pcpu-execve"}, {9999, []string{"rstat-every-n"}, "--baseline 9999"}} {
		n.Baseline = c.baseline
		if _, err := n.Tonight(ctx, c.experiments, nil); !usage.Is(err) || !strings.Contains(err.Error(), c.want) || fr.calls != calls {
			t.Fatalf("--baseline %d over %v: %v after %d run(s); want a usage error saying %q before any", c.baseline, c.experiments, err, fr.calls-calls, c.want)
		}
	}
	n.Baseline = first.RunIDs[0]
	if err := n.CheckBaseline(ctx, []string{"rstat-every-n"}); err != nil {
		t.Fatalf("--baseline of the experiment's own run: %v", err)
	}
	n.Baseline = 0
	// A branch that does not exist is refused before anything runs.
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git: %v\n%s", err, out)
		}
	}
	load := n.Load
	editLoaded(n, func(cfg *config.Config) { cfg.Kernel.GitTree = repo })
	n.Branch = "no-such-branch"
	if err := n.Check([]string{"rstat-every-n"}); err == nil || !strings.Contains(err.Error(), "no-such-branch") {
		t.Fatalf("unknown branch: %v", err)
	}
	n.Branch = "main"
	if err := n.Check([]string{"rstat-every-n"}); err != nil {
		t.Fatalf("existing branch refused: %v", err)
	}
	n.Load = load
	n.Branch = "no-such-branch"
	if r := n.Run(ctx, "rstat-every-n"); r.Outcome != verdict.InfraFailure || !strings.Contains(r.Error, "git_tree") {
		t.Fatalf("branch without a tree: %s %s", r.Outcome, r.Error)
	}
}

// Ten nights with a +30% shift after the sixth: the history names it.
func TestShiftOverNights(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	var last *nightreport.Result
	for i := 0; i < 12; i++ {
		if i == 6 {
			fr.holdUS = 65
		}
		last = n.Run(ctx, "rstat-every-n")
		if i == 6 {
			// Accept the intended change, as a person would.
			for _, id := range last.RunIDs {
				n.Store.AddMark(ctx, &results.Mark{RunID: id, Kind: results.MarkAccepted, Who: "ana", Reason: "intended"})
			}
		}
	}
	found := false
	for _, s := range last.Shifts {
		if s.Metric == "rstat_lock_hold_p99_us" && s.Pct > 15 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no shift found: %+v", last.Shifts)
	}
	if last.Outcome != verdict.NightPass || !strings.Contains(last.Baseline, "") {
		t.Fatalf("after acceptance: %s against %d (%s): %+v", last.Outcome, last.BaselineID, last.Baseline, last.Cases)
	}
}

// TestResumeFinishesAnInterruptedNight: a night stopped after 5 cells is
// resumed by the next nightly --resume, keeping its cells, and becomes
// the baseline; without --resume a new run would be started.
func TestResumeFinishesAnInterruptedNight(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	fr.interruptAfter = 5
	stopped := n.Run(ctx, "rstat-every-n")
	if stopped.Outcome != verdict.InfraFailure || len(stopped.RunIDs) != 1 {
		t.Fatalf("interrupted night: %s %v", stopped.Outcome, stopped.RunIDs)
	}
	fr.interruptAfter = 0
	n.Resume = true
	resumed := n.Run(ctx, "rstat-every-n")
	if resumed.Outcome != verdict.FirstNight || len(fr.resumed) != 1 || fr.resumed[0] != stopped.RunIDs[0] || resumed.RunIDs[0] != stopped.RunIDs[0] {
		t.Fatalf("resumed night: %s runs %v, resumed %v (%v)", resumed.Outcome, resumed.RunIDs, fr.resumed, resumed.Notes)
	}
	rs, _ := n.Store.Results(ctx, stopped.RunIDs[0])
	if len(rs) != 16 {
		t.Fatalf("resumed run has %d cells, want 16", len(rs))
	}
	if !strings.Contains(strings.Join(resumed.Notes, " "), "resumed run") {
		t.Fatalf("notes %v", resumed.Notes)
	}
	// Nothing left to resume: the next night starts a run of its own.
	next := n.Run(ctx, "rstat-every-n")
	if len(fr.resumed) != 1 || next.RunIDs[0] == stopped.RunIDs[0] || next.Outcome != verdict.NightPass {
		t.Fatalf("next night: %s %v, resumed %v", next.Outcome, next.RunIDs, fr.resumed)
	}
}

// A night of 3 boots per variant with the lock hold x10 cannot reach
// alpha (the smallest p at 3+3 is 0.1): it is unjudged, not good, never a
// baseline.
func TestThreeBootNightIsUnjudged(t *testing.T) {
	n, fr := newNight(t)
	editLoaded(n, func(cfg *config.Config) { cfg.Repetitions = 3 })
	ctx := context.Background()
	first := n.Run(ctx, "rstat-every-n")
	if first.Outcome != verdict.FirstNight {
		t.Fatalf("first night: %s", first.Outcome)
	}
	fr.holdUS *= 10
	r := n.Run(ctx, "rstat-every-n")
	if r.Outcome != verdict.NightUnjudged {
		t.Fatalf("3 boots, lock hold x10: outcome %s, want unjudged; cases %+v", r.Outcome, r.Cases)
	}
	skipped := 0
	for _, c := range r.Cases {
		if c.Status == nightreport.CaseSkipped && strings.HasPrefix(strings.ToLower(c.Message), "unjudged") {
			skipped++
		}
	}
	if skipped == 0 {
		t.Fatalf("no case says unjudged: %+v", r.Cases)
	}
	var junit bytes.Buffer
	if err := format.WriteNightJUnit(&junit, []*nightreport.Result{r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `type="unjudged"`) {
		t.Fatalf("JUnit does not fail the unjudged night:\n%s", junit.String())
	}
	for _, id := range r.RunIDs {
		marks, err := n.Store.Marks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if judgement(marks) != "" {
			t.Fatalf("the unjudged night's run %d was marked a baseline: %v", id, marks)
		}
	}
	// The next night is still compared with the first, not with the
	// unjudged one.
	next := n.Run(ctx, "rstat-every-n")
	if next.BaselineID != first.RunIDs[0] {
		t.Fatalf("next night's baseline is run %d, want the first night's %d", next.BaselineID, first.RunIDs[0])
	}
}

// Every knob is checked before anything runs.
func TestKnobsAreChecked(t *testing.T) {
	for _, c := range []struct {
		alpha, grey float64
		extra       int
		want        string
	}{
		{0, 0.2, 1, "--alpha 0"},
		{1.5, 2, 1, "--alpha 1.5"},
		{3, 4, 1, "--alpha 3"},
		{0.05, 0.2, -1, "--extra-rounds -1"},
		{0.05, 0.05, 1, "--grey-upper"},
		{0.05, 0.01, 1, "--grey-upper"},
		{0.05, 1.5, 1, "--grey-upper 1.5 must lie in (--alpha 0.05, 1]"},
		{0.05, math.NaN(), 1, "--grey-upper NaN"},
		{0.05, math.Inf(1), 1, "--grey-upper +Inf"},
	} {
		n, fr := newNight(t)
		n.Alpha, n.GreyUpper, n.ExtraRounds = c.alpha, c.grey, c.extra
		if err := n.Check([]string{"rstat-every-n"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("alpha %g grey %g extra %d: Check %v, want an error naming %s", c.alpha, c.grey, c.extra, err, c.want)
		}
		if r := n.Run(context.Background(), "rstat-every-n"); r.Outcome != verdict.InfraFailure || fr.calls != 0 {
			t.Errorf("alpha %g grey %g extra %d: Run measured (%d runs), outcome %s", c.alpha, c.grey, c.extra, fr.calls, r.Outcome)
		}
	}
}

// An experiment whose repetitions cannot reach alpha/looks on its primary
// metrics is refused before anything builds, naming what would.
func TestCheckRefusesUnjudgeableRepetitions(t *testing.T) {
	n, fr := newNight(t)
	editLoaded(n, func(cfg *config.Config) { cfg.Repetitions = 3 })
	err := n.Check([]string{"rstat-every-n"})
	if err == nil || !strings.Contains(err.Error(), "it needs 6 repetitions") {
		t.Fatalf("3 repetitions of 6 candidates: %v", err)
	}
	if fr.calls != 0 {
		t.Fatal("Check ran something")
	}
}

// Every built-in experiment, as shipped, can be judged by the nightly
// (alpha 0.05 over two looks) and by run (alpha 0.05).
func TestBuiltinExperimentsAreJudgeable(t *testing.T) {
	for _, e := range config.Experiments() {
		cfg, _, err := config.Load(e, nil)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		for _, alpha := range []float64{0.05, 0.025} {
			if err := judgeable(cfg, alpha); err != nil {
				t.Errorf("%s at alpha %g: %v", e, alpha, err)
			}
		}
		if !cfg.GateOnly && len(cfg.JudgedPrimary()) == 0 {
			t.Errorf("%s judges no primary metric (workload %s)", e, cfg.Workload.Name)
		}
	}
}

// Tonight checks every experiment before any runs (a refusal is a usage
// error), hands each result on as it is judged, in order, and stops
// after the experiment an interrupted night was in.
func TestTonight(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	if _, err := n.Tonight(ctx, []string{"rstat-every-n", "no-such-experiment"}, nil); !usage.Is(err) || fr.calls != 0 {
		t.Fatalf("an unknown experiment: %v after %d run(s); want a usage error before any", err, fr.calls)
	}
	both := []string{"rstat-every-n", "pcpu-execve"}
	var judged []string
	night, err := n.Tonight(ctx, both, func(r *nightreport.Result) { judged = append(judged, r.Experiment) })
	if err != nil || len(night) != 2 || !slices.Equal(judged, both) {
		t.Fatalf("night of %v: %d result(s), judged %v, %v", both, len(night), judged, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if night, err := n.Tonight(cancelled, both, nil); err != nil || len(night) != 1 || night[0].Experiment != both[0] {
		t.Fatalf("an interrupted night: %d result(s), %v; want the first experiment's only", len(night), err)
	}
}

// A night whose primary metric stayed flat while reads/s fell 84% in
// every boot passed, was marked good and became the baseline. Seen in
// every boot, the fall makes the night UNJUDGED (5+5 cannot judge a
// secondary metric of 10), or a regression where more boots judge it:
// never good, never a baseline.
func TestSecondaryRegressionNightIsNeverGood(t *testing.T) {
	for _, extra := range []int{0, 1} {
		n, fr := newNight(t)
		n.ExtraRounds = extra
		editLoaded(n, func(cfg *config.Config) {
			cfg.Repetitions = 5
			cfg.PrimaryMetrics = []string{"rstat_lock_hold_p99_us"}
		})
		// Eight more secondary metrics, as the rstat workload has: the
		// secondary family of 10 a variant cannot judge at 5+5.
		more := func(r *results.Result) {
			for i := 1; i <= 8; i++ {
				r.Metrics = append(r.Metrics, agentproto.Metric{Name: fmt.Sprintf("m%d", i), Unit: "us", Direction: agentproto.LowerIsBetter, Value: 100 * (1 + 0.1*fr.rng.NormFloat64())})
			}
		}
		fr.edit = more
		ctx := context.Background()
		if first := n.Run(ctx, "rstat-every-n"); first.Outcome != verdict.FirstNight {
			t.Fatalf("first night: %s %s", first.Outcome, first.Error)
		}
		fr.edit = func(r *results.Result) {
			more(r)
			for i := range r.Metrics {
				if r.Metrics[i].Name == "reads_per_sec" {
					r.Metrics[i].Value *= 0.16
				}
			}
		}
		// A second look pools 10 boots of tonight, but the baseline
		// night has 5: 5+10 in a family of 20 cannot judge either.
		r := n.Run(ctx, "rstat-every-n")
		if r.Outcome != verdict.NightUnjudged && r.Outcome != verdict.NightRegression {
			t.Fatalf("extra rounds %d: reads/s -84%% in every boot, primary flat: outcome %s, want unjudged or regression; cases %+v", extra, r.Outcome, r.Cases)
		}
		for _, id := range r.RunIDs {
			marks, err := n.Store.Marks(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if judgement(marks) != "" {
				t.Fatalf("extra rounds %d: the night's run %d was judged %q: it must never be good", extra, id, judgement(marks))
			}
		}
		if r.Outcome == verdict.NightUnjudged && !slices.ContainsFunc(r.Cases, func(c nightreport.Case) bool {
			return strings.Contains(c.Message, "UNJUDGED, seen to change (every boot below every baseline boot)")
		}) {
			t.Fatalf("no case says reads/s was seen to fall: %+v", r.Cases)
		}
	}
}

// --branch without a tree refuses every experiment for one reason: it is
// said once, after the experiments it applies to, not once per
// experiment.
func TestRefusalSaidOnce(t *testing.T) {
	n, _ := newNight(t)
	n.Branch = "master"
	exps := []string{"rstat-every-n", "pcpu-execve"}
	err := n.Check(exps)
	if err == nil {
		t.Fatal("--branch without kernel.git_tree accepted")
	}
	msg := err.Error()
	if c := strings.Count(msg, "--branch needs kernel.git_tree"); c != 1 {
		t.Fatalf("the refusal said %d times, want once: %s", c, msg)
	}
	if !strings.Contains(msg, "rstat-every-n, pcpu-execve: --branch needs kernel.git_tree") {
		t.Fatalf("the refusal does not name the experiments it applies to: %s", msg)
	}
}

// A night judges one vCPU count against its baseline night: a sweep is
// refused when the night is checked, not after its boots.
func TestNightRefusesASweep(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.VM.CPUsSweep = []int{2, 8}
	if err := judgeable(cfg, 0.05); err == nil || !strings.Contains(err.Error(), "vm.cpus_sweep") {
		t.Fatalf("a night of a sweep: %v, want a refusal naming vm.cpus_sweep", err)
	}
}
