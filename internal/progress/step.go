package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Step is a progress line that says how far a phase (the cells of a
// run, a kernel's compilation, a bisect's looks) has come. Handed to a
// Reporter as its only argument, report("%s", step), it prints as Text
// wherever lines are logged; on a terminal each step of a phase replaces
// the one before, so a phase is one updating line, with the time it
// should end when Left is known.
type Step struct {
	Phase string        // steps of one phase share a line
	Text  string        // the line, as logged
	Left  time.Duration // the time the phase should still take; 0 if unknown
	// Head says, on a terminal only, which phase of a longer command the
	// step belongs to (a bisect's step whose boots Text counts): logged
	// lines carry it in lines of their own.
	Head string
	// Background marks work done beside the phase in the foreground (a
	// bisect's speculative build while a look boots): logged, but not
	// drawn on a terminal, where the foreground's line would give way
	// to it at every step.
	Background bool
}

func (s Step) String() string { return s.Text }

// AsStep returns the Step a Reporter was called with, if any.
func AsStep(args []any) (Step, bool) {
	if len(args) != 1 {
		return Step{}, false
	}
	s, ok := args[0].(Step)
	return s, ok
}

// liveLine prints progress for a person at a terminal: a line per
// message, and one line per phase that its steps rewrite in place (the
// cursor goes up over the phase's last line, which always ends in a
// newline, so whatever else is printed starts on a line of its own).
type liveLine struct {
	mu    sync.Mutex
	w     io.Writer
	now   func() time.Time
	width func() int // the terminal's columns; 0 if unknown
	phase string     // the phase whose step is the last line; "" if none
}

func (l *liveLine) report(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	step, isStep := AsStep(args)
	if !isStep {
		l.phase = ""
		fmt.Fprintf(l.w, "%s %s\n", now.Format("15:04:05"), fmt.Sprintf(format, args...))
		return
	}
	if step.Background {
		return
	}
	line := now.Format("15:04:05") + " " + step.Text
	if step.Head != "" {
		line = now.Format("15:04:05") + " " + step.Head + " · " + step.Text
	}
	if step.Left > 0 {
		line += " · ETA " + now.Add(step.Left).Format("15:04")
	}
	up := ""
	if l.phase != "" && l.phase == step.Phase {
		up = "\x1b[1A\r\x1b[2K" // over the phase's last line
	}
	l.phase = step.Phase
	fmt.Fprintf(l.w, "%s%s\n", up, fit(line, l.width()))
}

// fit cuts line to width columns (one rune, one column): a line that
// wraps would leave its first rows behind when the next step moves up
// over it.
func fit(line string, width int) string {
	line = strings.ReplaceAll(line, "\n", " ")
	if width <= 1 || utf8.RuneCountInString(line) < width {
		return line
	}
	r := []rune(line)
	return string(r[:width-2]) + "…"
}

// Remaining is the time the rest of a phase of n like parts should take
// when done of them took elapsed; 0 (unknown) before the first is done
// or once all are.
func Remaining(elapsed time.Duration, done, n int) time.Duration {
	if done <= 0 || done >= n {
		return 0
	}
	return time.Duration(float64(elapsed) / float64(done) * float64(n-done)).Round(time.Second)
}
