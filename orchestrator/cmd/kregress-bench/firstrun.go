package main

// The durations a newcomer asks for first: how long the first `kregress
// run` takes on a new machine, and how long a night of one experiment
// takes. Both are timed as a user meets them: the kregress binary run as
// a command, its stdout read for the verdict's line.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// nightExperiment is the experiment a timed night measures: the default
// one, whose kernels the first run built.
const nightExperiment = "rstat-relock"

// Figure labels the README's durations block reads (readme.go).
const (
	labelFirstVerdict = "first run, `kregress run` from a cold cache and ccache: first verdict"
	labelFirstDone    = "  first run: done (its further boots and the debug pass included)"
	labelNightFirst   = "night of one experiment (" + nightExperiment + "), kernels cached: the first (becomes the baseline)"
	labelNightJudged  = "  night of one experiment: the next, judged against the first"
)

// timedCommand is one kregress command line the bench times.
type timedCommand struct {
	Bin  string
	Args []string
	// Env is added to the bench's own environment.
	Env []string
	// Ends lists the exit statuses that mean the command ran to its end
	// (a verdict); any other is the bench's error.
	Ends []int
}

// timing is how long a timed command took: to the first stdout line that
// starts with "verdict:" (0 when it printed none), and in all.
type timing struct {
	FirstVerdict, Wall time.Duration
	Exit               int
}

// tailLines is how much of a failed command's output its error quotes.
const tailLines = 20

// time runs c, its stdout and stderr copied to log, and returns how long
// it took; an exit status outside c.Ends is an error quoting the end of
// its output.
func (c timedCommand) time(ctx context.Context, log io.Writer) (timing, error) {
	cmd := exec.CommandContext(ctx, c.Bin, c.Args...)
	cmd.Env = append(os.Environ(), c.Env...)
	var tail []string
	keep := func(line string) {
		fmt.Fprintln(log, line)
		if tail = append(tail, line); len(tail) > tailLines {
			tail = tail[1:]
		}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return timing{}, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return timing{}, err
	}
	var t timing
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return timing{}, fmt.Errorf("%s: %w", c, err)
	}
	lines := make(chan string)
	done := make(chan struct{})
	go func() {
		scan := bufio.NewScanner(stderr)
		for scan.Scan() {
			lines <- scan.Text()
		}
		done <- struct{}{}
	}()
	go func() {
		scan := bufio.NewScanner(stdout)
		for scan.Scan() {
			if t.FirstVerdict == 0 && strings.HasPrefix(scan.Text(), "verdict:") {
				t.FirstVerdict = time.Since(t0)
			}
			lines <- scan.Text()
		}
		done <- struct{}{}
	}()
	for open := 2; open > 0; {
		select {
		case l := <-lines:
			keep(l)
		case <-done:
			open--
		}
	}
	err = cmd.Wait()
	t.Wall = time.Since(t0)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		t.Exit = exit.ExitCode()
	case err != nil:
		return t, fmt.Errorf("%s: %w", c, err)
	}
	if !slices.Contains(c.Ends, t.Exit) {
		return t, fmt.Errorf("%s exited %d, not one of %v; its last lines:\n%s", c, t.Exit, c.Ends, strings.Join(tail, "\n"))
	}
	return t, nil
}

func (c timedCommand) String() string {
	return strings.Join(append([]string{filepath.Base(c.Bin)}, c.Args...), " ")
}

// seconds is a duration as the figures print it: seconds, one decimal.
func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) }

// benchFirstRunAndNight times, with the kregress binary bin, the first
// run of the built-in default experiment on a new machine (`kregress run`,
// as make run runs it, with an empty cache, ccache and store), then
// (unless skipNight) two nights of its experiment on the kernels that
// run built: the first, which becomes the baseline, and the next, judged
// against it. With the first run skipped, the nights use the user's
// configured cache. Nothing lands in the user's store.
func benchFirstRunAndNight(ctx context.Context, bin string, skipFirst, skipNight bool, log io.Writer) error {
	dir, err := os.MkdirTemp("", "kregress-bench-firstrun-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := []string{
		"KREGRESS_RESULTS_DIR=" + filepath.Join(dir, "results"),
		"KREGRESS_STORE=" + filepath.Join(dir, "results", "kregress.db"),
	}
	nightEnv := env
	if !skipFirst {
		cacheDir := filepath.Join(dir, "cache")
		nightEnv = append(nightEnv, "KREGRESS_CACHE_DIR="+cacheDir)
		// A new machine's ccache is empty too.
		first := timedCommand{Bin: bin, Args: []string{"run"}, Env: append(env, "KREGRESS_CACHE_DIR="+cacheDir, "CCACHE_DIR="+filepath.Join(dir, "ccache")), Ends: []int{0}}
		t, err := first.time(ctx, log)
		if err != nil {
			return err
		}
		if t.FirstVerdict == 0 {
			return fmt.Errorf("%s printed no verdict line", first)
		}
		figure(labelFirstVerdict, seconds(t.FirstVerdict))
		figure(labelFirstDone, seconds(t.Wall))
	}
	if skipNight {
		return nil
	}
	// A night ends 0 (passed, or set its first baseline), 3 (a
	// regression) or 9 (unjudged): each is a night that ran to its end.
	night := timedCommand{Bin: bin, Args: []string{"nightly", nightExperiment}, Env: nightEnv, Ends: []int{0, 3, 9}}
	for _, label := range []string{labelNightFirst, labelNightJudged} {
		t, err := night.time(ctx, log)
		if err != nil {
			return err
		}
		figure(label, seconds(t.Wall))
	}
	return nil
}
