package main

import (
	"strings"
	"testing"
)

// TestOldNamesStillWork: a setting has one name across commands (diff's
// noise floors are --noise-floor-pct as in run and the configuration;
// bisect's list of boots per look is --looks, not run's --repetitions);
// the old names still work, with a warning that names the new one, and
// help shows only the new.
func TestOldNamesStillWork(t *testing.T) {
	store := seed(t)
	out, err := kregress(t, store, "diff", "1", "--noise", "rstat_lock_hold_p99_us=1000")
	if err != nil || !strings.Contains(out, "--noise has been deprecated, use --noise-floor-pct") {
		t.Fatalf("diff --noise: %v\n%s", err, out)
	}
	same := mustRun(t, store, "diff", "1", "--noise-floor-pct", "rstat_lock_hold_p99_us=1000")
	if !strings.Contains(out, same) {
		t.Fatalf("--noise and --noise-floor-pct differ:\n%s\n---\n%s", out, same)
	}
	for _, c := range [][]string{{"diff", "--help"}, {"bisect", "--help"}, {"bisect", "step", "--help"}} {
		help := mustRun(t, store, c...)
		for _, old := range []string{"--noise ", "--repetitions", "--reps"} {
			if strings.Contains(help, old) {
				t.Errorf("%q shows the old name %s:\n%s", c, old, help)
			}
		}
	}
	out, _ = kregress(t, store, "bisect", "--good", "a", "--bad", "b", "--metric", "reads_per_sec", "--repetitions", "1,x")
	if !strings.Contains(out, "--repetitions has been deprecated, use --looks") || !strings.Contains(out, `--looks "1,x"`) {
		t.Fatalf("bisect --repetitions: %s", out)
	}
}
