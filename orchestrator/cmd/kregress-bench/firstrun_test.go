package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeKregress writes a kregress that logs each call (its arguments and
// the cache, ccache and store it was given) to calls and behaves as
// script says: the shell body run for every call.
func fakeKregress(t *testing.T, script string) (bin, calls string) {
	t.Helper()
	dir := t.TempDir()
	bin, calls = filepath.Join(dir, "kregress"), filepath.Join(dir, "calls")
	body := "#!/bin/sh\n" +
		`echo "$* cache=$KREGRESS_CACHE_DIR ccache=$CCACHE_DIR store=$KREGRESS_STORE" >> ` + calls + "\n" + script
	if err := os.WriteFile(bin, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, calls
}

// freshBench empties the figures recorded so far and silences their
// printing, for one test.
func freshBench(t *testing.T) {
	saved, savedOut := bench, out
	bench, out = measured{}, io.Discard
	t.Cleanup(func() { bench, out = saved, savedOut })
}

const fakeRun = `case "$1" in
run) echo "patched vs base"; echo "verdict: UNJUDGED: ..."; echo "stored as run 1" ;;
nightly) echo "rstat-relock: UNJUDGED" >&2; exit 9 ;;
esac
`

func TestFirstRunAndNightTimed(t *testing.T) {
	freshBench(t)
	bin, calls := fakeKregress(t, fakeRun)
	var log strings.Builder
	if err := benchFirstRunAndNight(context.Background(), bin, false, false, &log); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, f := range bench.Figures {
		labels = append(labels, f.Label)
		if v, err := strconv.ParseFloat(f.Value, 64); err != nil || v < 0 {
			t.Errorf("%s: %q is not a duration in seconds", f.Label, f.Value)
		}
	}
	want := []string{labelFirstVerdict, strings.TrimSpace(labelFirstDone), labelNightFirst, strings.TrimSpace(labelNightJudged)}
	if strings.Join(labels, "\n") != strings.Join(want, "\n") {
		t.Errorf("figures %q, want %q", labels, want)
	}
	if first, _ := strconv.ParseFloat(bench.Figures[0].Value, 64); first > func() float64 { v, _ := strconv.ParseFloat(bench.Figures[1].Value, 64); return v }() {
		t.Errorf("the first verdict came after the run ended: %v", bench.Figures)
	}
	if !strings.Contains(log.String(), "verdict: UNJUDGED") || !strings.Contains(log.String(), "rstat-relock: UNJUDGED") {
		t.Errorf("the commands' output was not passed on:\n%s", log.String())
	}
	// The first run is a new machine's: its own cache and ccache, a
	// store of the bench's; the nights use that cache (its kernels) and
	// that store, never the user's.
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "run cache=") || !strings.HasPrefix(lines[1], "nightly rstat-relock cache=") || lines[1] != lines[2] {
		t.Fatalf("calls:\n%s", b)
	}
	field := func(line, key string) string {
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, key+"="); ok {
				return v
			}
		}
		return ""
	}
	cache, store := field(lines[0], "cache"), field(lines[0], "store")
	if cache == "" || field(lines[0], "ccache") == "" || store == "" || field(lines[1], "cache") != cache || field(lines[1], "store") != store {
		t.Errorf("the first run and the nights do not share the bench's own cache and store:\n%s", b)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("the bench left its cache %s behind: %v", cache, err)
	}
}

func TestFirstRunFailuresAreErrors(t *testing.T) {
	for name, c := range map[string]struct{ script, want string }{
		"a run that fails": {"echo 'building stock' >&2; echo 'kregress: qemu: not found' >&2; exit 1", "exited 1, not one of [0]; its last lines:\nbuilding stock\nkregress: qemu: not found"},
		"no verdict":       {"echo 'stored as run 1'", "printed no verdict line"},
		"a night that fails": {`[ "$1" = run ] && { echo 'verdict: no significant change'; exit 0; }; echo "tonight's kernel did not build" >&2; exit 5`,
			"nightly rstat-relock exited 5, not one of [0 3 9]"},
	} {
		t.Run(name, func(t *testing.T) {
			freshBench(t)
			bin, _ := fakeKregress(t, c.script)
			err := benchFirstRunAndNight(context.Background(), bin, false, false, io.Discard)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to say %q", err, c.want)
			}
		})
	}
}

// With the first run skipped the nights run on the user's configured
// cache: nothing says where, so kregress's own default applies.
func TestNightsAloneUseTheUsersCache(t *testing.T) {
	freshBench(t)
	t.Setenv("KREGRESS_CACHE_DIR", "")
	bin, calls := fakeKregress(t, fakeRun)
	if err := benchFirstRunAndNight(context.Background(), bin, true, false, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(calls)
	if len(bench.Figures) != 2 || strings.Contains(string(b), "run cache") || !strings.Contains(string(b), "nightly rstat-relock cache= ") {
		t.Errorf("figures %v, calls:\n%s", bench.Figures, b)
	}
}
