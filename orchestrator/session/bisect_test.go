package session

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/store"
)

// kregress bisect refuses, as usage errors and before anything builds, a
// negative --resume, a --repetitions that does not read and (for a new
// search only: a resume keeps what it stored) an alpha or looks that
// could only end "does not reproduce".
func TestBisectRunCheck(t *testing.T) {
	ok := BisectRun{RepsText: "4,4,8", Request: BisectRequest{Alpha: 0.05}}
	if err := ok.Check(); err != nil || len(ok.Request.Reps) != 3 || ok.Request.Reps[2] != 8 {
		t.Fatalf("a good run: %v, reps %v", err, ok.Request.Reps)
	}
	for _, c := range []struct {
		r    BisectRun
		want string
	}{
		{BisectRun{RepsText: "4", Resume: -1}, "--resume -1 is not a bisect id"},
		{BisectRun{RepsText: "4,x", Request: BisectRequest{Alpha: 0.05}}, "--looks"},
		{BisectRun{RepsText: "4", Request: BisectRequest{Alpha: 0}}, "--alpha 0"},
		{BisectRun{RepsText: "1,1,1", Request: BisectRequest{Alpha: 0.05}}, "--looks 2,2,2"},
	} {
		if err := c.r.Check(); err == nil || !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error with %q", c.r, err, c.want)
		}
	}
	resumed := BisectRun{RepsText: bisect.RepsString(bisect.DefaultReps), Resume: 3}
	if err := resumed.Check(); err != nil {
		t.Errorf("a resume with alpha 0 (its own is stored): %v", err)
	}
}

// kregress bisect refuses, before it opens the store, cells it would
// wait for, a request that does not check and an -o that does not
// resolve; a store it cannot open or a bisect it cannot resume is an
// error, and nothing is printed.
func TestBisectRunRefusals(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = filepath.Join(t.TempDir(), "k.db")
	opened := 0
	ports := BisectPorts{Open: func(context.Context, string) (results.Store, error) { opened++; return nil, errors.New("store locked") },
		Load: func(string) (*config.Config, error) { return cfg, nil }, Report: func(string, ...any) {}}
	ok := BisectRun{RepsText: bisect.RepsString(bisect.DefaultReps), Request: BisectRequest{Alpha: 0.05}}
	for _, c := range []struct {
		edit   func(r *BisectRun, cfg *config.Config)
		want   string
		usage  bool
		opened int
	}{
		{func(_ *BisectRun, cfg *config.Config) { cfg.Executor.Detach = true }, "bisect judges the cells' results", true, 0},
		{func(r *BisectRun, _ *config.Config) { r.Request.Alpha = 0 }, "--alpha 0", true, 0},
		{func(r *BisectRun, _ *config.Config) {
			r.Reports = &flagkit.Outputs{Files: format.Names(format.CulpritFormats...), Values: []string{"bad=x"}}
		}, `-o bad=x: format "bad"`, true, 0},
		{func(*BisectRun, *config.Config) {}, "store locked", false, 1},
	} {
		r, c2 := ok, *cfg
		c.edit(&r, &c2)
		opened = 0
		var stdout, stderr bytes.Buffer
		err := r.Run(context.Background(), &c2, ports, bisect.Output{Stdout: &stdout, Stderr: &stderr})
		if err == nil || !strings.Contains(err.Error(), c.want) || usage.Is(err) != c.usage || opened != c.opened || stdout.Len()+stderr.Len() != 0 {
			t.Errorf("%s: %v (usage %v), store opened %d time(s), printed %q %q", c.want, err, usage.Is(err), opened, stdout.String(), stderr.String())
		}
	}
	ports.Open = func(_ context.Context, spec string) (results.Store, error) { return store.OpenSQLite(spec) }
	r := ok
	r.Resume = 9
	var stdout bytes.Buffer
	if err := r.Run(context.Background(), cfg, ports, bisect.Output{Stdout: &stdout, Stderr: &stdout}); err == nil || !strings.Contains(err.Error(), "no bisect 9") || stdout.Len() != 0 {
		t.Errorf("resuming a missing bisect: %v, printed %q", err, stdout.String())
	}
}

// A bisect step is one call on one set of boots: an experiment with a
// vCPU sweep is refused as a usage error before anything is resolved.
func TestBisectRefusesASweep(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.VM.CPUsSweep = []int{2, 8}
	_, err = (&Session{}).Bisect(context.Background(), cfg, nil, &BisectRun{})
	if err == nil || !usage.Is(err) || !strings.Contains(err.Error(), "vm.cpus_sweep") {
		t.Fatalf("a bisect of a sweep: %v, want a usage error naming vm.cpus_sweep", err)
	}
}
