package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results/store/storetest"
)

// TestCellLinesAreSteps: a run's cell lines reach the reporter as steps
// of one phase ("cells", an updating line on a terminal); a kernel
// report and a cell that failed are lines of their own, which a
// terminal keeps.
func TestCellLinesAreSteps(t *testing.T) {
	dir := t.TempDir()
	st := storetest.SQLiteIn(t, dir)
	var mu sync.Mutex
	var steps, lines []string
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := progress.AsStep(args); ok {
			if s.Phase != "cells" {
				t.Errorf("step of phase %q: %s", s.Phase, s.Text)
			}
			steps = append(steps, s.Text)
			return
		}
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	calls := 0
	b := &fakeBooter{}
	b.onBoot = func(m *fakeMachine) {
		calls++
		if calls == 2 {
			m.die(true, "Kernel panic - not syncing: test")
		}
	}
	runner := newRunner(b, &fakeDialer{run: okRun(goodDocument(10)), booter: b})
	runner.Progress = func(string, ...any) {}
	cfg := &config.Config{Experiment: "e", Repetitions: 2}
	p := &Prepared{Family: &patches.Family{Name: "rstat", Baseline: "A"}, Variants: []VariantBuild{{Name: "A"}, {Name: "B"}}, AgentCmd: "x"}
	ex := &Executor{Store: st, ArtifactsDir: filepath.Join(dir, "artifacts"), Report: func(string, ...any) {}, Cells: &Local{Runner: runner, Report: report}}
	if _, err := ex.Execute(context.Background(), cfg, p); err != nil {
		t.Fatal(err)
	}
	booting, done := 0, 0
	for _, s := range steps {
		switch {
		case strings.Contains(s, ": booting ("):
			booting++
		case strings.Contains(s, ": ok "):
			done++
		}
	}
	if booting != 4 || done != 3 {
		t.Errorf("steps %q: want 4 booting and 3 ok", steps)
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "  kernel report: kernel panic") || !strings.Contains(lines[1], "[2/4] B rep 1: crashed") {
		t.Errorf("lines of their own %q: want the kernel report and the crashed cell", lines)
	}
}
