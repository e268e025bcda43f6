package bisect

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/kregress/kregress/internal/progress"
)

// A bisect's phases (its endpoints, each step, the confirmation by
// revert) are progress.Steps whose Phase starts with phasePrefix. Lines
// files the kernel builds and boots of a phase under it, so that on a
// terminal each phase is one updating line, as a run's cells are.
const phasePrefix = "bisect "

// Lines is the Reporter a bisect prints its progress through, r being
// the command's (progress.For): a step of the pipeline (a compilation, a
// look's boots) is drawn on the line of the bisect's phase it belongs
// to, prefixed with the phase's label and with the bisect's ETA when one
// is known. A line said before in this bisect (the pipeline's set-up
// lines, said again at every look: the guest image, the accelerator, an
// endpoint's cached kernel) is drawn there too: it says nothing new. Logged
// lines are r's, unchanged: steps print as their text.
func Lines(r progress.Reporter) progress.Reporter {
	if r == nil {
		return nil
	}
	l := &phaseLines{out: r, now: time.Now, said: map[string]bool{}}
	return l.report
}

type phaseLines struct {
	mu    sync.Mutex
	out   progress.Reporter
	now   func() time.Time
	phase string          // the bisect's phase; "" before its first
	label string          // the phase's label on a terminal
	end   time.Time       // when the bisect should end; zero if unknown
	said  map[string]bool // the lines printed so far, up to maxSaid
}

// maxSaid bounds the lines phaseLines remembers: a long bisect's lines beyond
// it are printed as lines of their own, as they come.
const maxSaid = 4096

func (l *phaseLines) report(format string, args ...any) {
	step, ok := progress.AsStep(args)
	if _, warn := progress.AsWarning(args); warn {
		l.out(format, args...)
		return
	}
	l.mu.Lock()
	if !ok {
		msg := fmt.Sprintf(format, args...)
		again := l.said[msg]
		if !again && len(l.said) < maxSaid {
			l.said[msg] = true
		}
		if !again || l.phase == "" {
			l.mu.Unlock()
			l.out(format, args...)
			return
		}
		step = progress.Step{Text: msg}
	}
	switch {
	case strings.HasPrefix(step.Phase, phasePrefix):
		// The phase's own line: its label goes on its steps.
		l.phase, l.label, l.end = step.Phase, step.Head, time.Time{}
		if step.Left > 0 {
			l.end = l.now().Add(step.Left)
		}
		step.Head = ""
	case l.phase != "" && !step.Background:
		step.Phase, step.Head, step.Left = l.phase, l.label, 0
		if left := l.end.Sub(l.now()); !l.end.IsZero() && left > 0 {
			step.Left = left
		}
	}
	l.mu.Unlock()
	l.out("%s", step)
}

// aboutSteps is how many steps a bisect of n commits should take: one
// per halving, and one more.
func aboutSteps(n int) int {
	return int(math.Ceil(math.Log2(float64(max(n, 2))))) + 1
}

// pace times a bisect's steps in this process (a resumed bisect's
// earlier steps took unknown times) for its ETA.
type pace struct {
	start time.Time // when this process's first step began
	base  int       // the steps done before it
}

// left is the time the bisect should still take, now, at step k of
// about n: the steps done here at their pace so far; 0 if unknown.
func (p *pace) left(now time.Time, k, n int) time.Duration {
	if p == nil {
		return 0
	}
	if p.start.IsZero() {
		p.start, p.base = now, k-1
	}
	return progress.Remaining(now.Sub(p.start), k-1-p.base, n-p.base)
}

// phase reports the start of a phase of the bisect: its line as logged
// (format, args), and label, what prefixes its builds' and boots' steps
// on a terminal (Lines).
func (o Options) phase(name, label string, left time.Duration, format string, args ...any) {
	o.Report("%s", progress.Step{Phase: phasePrefix + name, Head: label, Text: fmt.Sprintf(format, args...), Left: left})
}

// stepPhase reports the start of step k (of about n) at commit c.
func (o Options) stepPhase(k, n int, c string, format string, args ...any) {
	o.phase(fmt.Sprintf("step %d", k), fmt.Sprintf("bisect step %d of ~%d, %.12s", k, n, c), o.pace.left(time.Now(), k, n), format, args...)
}

// beside marks the steps reported through r as Background: a
// speculative build's, which runs while a look boots.
func beside(r progress.Reporter) progress.Reporter {
	if r == nil {
		return nil
	}
	return func(format string, args ...any) {
		if step, ok := progress.AsStep(args); ok {
			step.Background = true
			r("%s", step)
			return
		}
		r(format, args...)
	}
}
