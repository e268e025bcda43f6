package bisect

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/results/store/storetest"
)

// chattyProber reports what the pipeline reports while it builds and
// boots: a compilation's steps and a look's cells, through the same
// Reporter as the search (as session.bisectRunner wires them).
type chattyProber struct {
	*revertFake
	report progress.Reporter
	looks  int
}

func (c *chattyProber) Build(ctx context.Context, commit string) (string, error) {
	c.report("%s", progress.Step{Phase: "kernel good", Text: "kernel good: make -j2 bzImage"})
	c.report("%s", progress.Step{Phase: "kernel good", Text: "kernel good: 50% (LD vmlinux)", Left: time.Minute})
	return c.revertFake.Build(ctx, commit)
}

func (c *chattyProber) Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error) {
	c.looks++
	c.report("guest image %s (%s)", "k1", "/cache/guest/k1.img")
	c.report("accelerator: tcg (no /dev/kvm)")
	c.report("%s", progress.Step{Phase: "cells", Text: "[1/2] good rep 1: booting (kvm, 2 vCPUs)"})
	c.report("%s", progress.Step{Phase: "cells", Text: "[2/2] bad rep 1: ok (1 of 2 cells done, ~1m left)", Left: time.Minute})
	return c.revertFake.Measure(ctx, step, good, bad, reps)
}

// screen is what a terminal shows after out: a cursor-up-and-clear
// takes the line above back; the clock before each line goes.
func screen(out string) []string {
	var rows []string
	clock := regexp.MustCompile(`^\d\d:\d\d:\d\d `)
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for strings.HasPrefix(l, "\x1b[1A\r\x1b[2K") {
			l = strings.TrimPrefix(l, "\x1b[1A\r\x1b[2K")
			rows = rows[:len(rows)-1]
		}
		rows = append(rows, clock.ReplaceAllString(l, ""))
	}
	return rows
}

// bisectWith runs a metric bisect of 8 commits (culprit c5) to its
// confirmation by revert, printing progress through Lines(r); it returns
// the looks it measured.
func bisectWith(t *testing.T, r progress.Reporter) int {
	t.Helper()
	names := commits(8)
	spec := &Spec{Names: names, Points: map[string]Point{}, Metric: "m"}
	for _, n := range names {
		spec.Points[n] = Point{Ref: n}
	}
	s := storetest.SQLite(t)
	report := Lines(r)
	f := &chattyProber{revertFake: &revertFake{fakeProber: newFake(slowFrom(5), 5), revertValue: 100, added: map[string]Point{}}, report: report}
	revert := func(ctx context.Context, s *Spec, culprit string) (Point, string, error) {
		return Point{Ref: "rev-" + culprit}, "rev-" + culprit, nil
	}
	sess := &Runner{Store: s, Prober: f, Report: report, Revert: revert}
	if _, res, err := sess.Start(context.Background(), spec); err != nil || res.Culprit != "c5" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	return f.looks
}

// On a terminal a bisect shows one updating line per phase (its
// endpoints, each step, the confirmation by revert): the builds and
// boots of a phase rewrite its line, labelled with the phase.
func TestBisectProgressOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	bisectWith(t, progress.To(&buf, true, false))
	rows := screen(buf.String())
	t.Logf("screen:\n%s", strings.Join(rows, "\n"))
	phases := map[string]int{}
	last := ""
	for _, row := range rows {
		label, _, isPhase := strings.Cut(row, " · ")
		if !isPhase || !strings.HasPrefix(label, "bisect ") {
			last = ""
			continue
		}
		if label == last {
			t.Errorf("phase %q left two lines in a row:\n%s", label, strings.Join(rows, "\n"))
		}
		phases[label]++
		last = label
	}
	for _, want := range []string{"bisect endpoints c0..c8", "bisect confirming c5 by revert"} {
		if phases[want] == 0 {
			t.Errorf("no line for phase %q:\n%s", want, strings.Join(rows, "\n"))
		}
	}
	step := regexp.MustCompile(`^bisect step (\d+) of ~4, c\d$`)
	steps := 0
	for label := range phases {
		if step.MatchString(label) {
			steps++
		}
	}
	if steps < 2 {
		t.Errorf("%d step phases on the screen, want the bisect's steps:\n%s", steps, strings.Join(rows, "\n"))
	}
	// A phase's line ends on its latest boot, not on a log line.
	endpoints := ""
	for _, row := range rows {
		if strings.HasPrefix(row, "bisect endpoints c0..c8 · ") {
			endpoints = row
		}
		if strings.Contains(row, "level=") {
			t.Errorf("a slog line on a terminal: %q", row)
		}
	}
	if !strings.HasSuffix(endpoints, "[2/2] bad rep 1: ok (1 of 2 cells done, ~1m left)") {
		t.Errorf("the endpoints' last line: %q", endpoints)
	}
	// The pipeline's set-up lines, said at every look, are a line once.
	for _, said := range []string{"guest image k1 (/cache/guest/k1.img)", "accelerator: tcg (no /dev/kvm)"} {
		n := 0
		for _, row := range rows {
			if row == said {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q is %d lines of its own, want 1", said, n)
		}
	}
	// Far fewer lines than steps were reported.
	if raw := strings.Count(buf.String(), "\n"); len(rows) >= raw/2 {
		t.Errorf("%d lines on the screen from %d reported", len(rows), raw)
	}
}

// Where progress is logged (--log-format, or stderr not a terminal) a
// bisect's lines are slog lines of their own text: no labels, no cursor
// moves, every build's and boot's step kept.
func TestBisectProgressLogged(t *testing.T) {
	var buf bytes.Buffer
	looks := bisectWith(t, progress.To(&buf, false, false))
	out := buf.String()
	if n := strings.Count(out, `msg="accelerator: tcg (no /dev/kvm)"`); n != looks || looks < 3 {
		t.Errorf("the accelerator logged %d times in %d looks, want every time", n, looks)
	}
	for _, want := range []string{
		`level=INFO msg="bisect: measuring the endpoints c0 (good) and c8 (bad)"`,
		`level=INFO msg="[1/2] good rep 1: booting (kvm, 2 vCPUs)"`,
		`level=INFO msg="kernel good: make -j2 bzImage"`,
		`level=INFO msg="bisect: confirming c5: measuring the bad endpoint with it reverted (rev-c5)"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(l, "time=") || strings.Contains(l, "\x1b") || strings.Contains(l, " · ") {
			t.Errorf("not a plain slog line: %q", l)
		}
	}
}

// The bisect's ETA, once a step has been timed, goes on the line of
// each build and boot of the phase; a speculative build's steps are
// logged but not drawn over the phase's line.
func TestBisectProgressETAAndBackground(t *testing.T) {
	var buf bytes.Buffer
	r := Lines(progress.To(&buf, true, false))
	o := Options{Report: r}
	o.phase("step 2", "bisect step 2 of ~4, c4", time.Hour, "bisect: c4, bad with chance 0.500: a look of 2 boots beside bad")
	r("%s", progress.Step{Phase: "cells", Text: "[1/4] step rep 1: booting"})
	beside(r)("%s", progress.Step{Phase: "kernel good", Text: "kernel good: 10%"})
	rows := screen(buf.String())
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "bisect step 2 of ~4, c4 · [1/4] step rep 1: booting · ETA ") {
		t.Fatalf("screen:\n%s", strings.Join(rows, "\n"))
	}
	buf.Reset()
	r = Lines(progress.To(&buf, false, false))
	beside(r)("%s", progress.Step{Phase: "kernel good", Text: "kernel good: 10%"})
	if !strings.Contains(buf.String(), `msg="kernel good: 10%"`) {
		t.Fatalf("a speculative build's step, logged: %q", buf.String())
	}
}

// The ETA: the steps done in this process at their pace, none before
// one is done or once the steps expected are done; a resumed bisect's
// earlier steps are not timed.
func TestPaceLeft(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	p := &pace{}
	if left := p.left(t0, 1, 5); left != 0 {
		t.Fatalf("before any step: %s", left)
	}
	if left := p.left(t0.Add(10*time.Minute), 3, 5); left != 15*time.Minute {
		t.Fatalf("two steps in 10m, three to go: %s", left)
	}
	if left := p.left(t0.Add(30*time.Minute), 6, 5); left != 0 {
		t.Fatalf("past the steps expected: %s", left)
	}
	resumed := &pace{}
	resumed.left(t0, 4, 6)
	if left := resumed.left(t0.Add(10*time.Minute), 5, 6); left != 20*time.Minute {
		t.Fatalf("resumed at step 4, one step in 10m, two to go: %s", left)
	}
}
