package workload

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/sampler"
)

// Every workload has the two timing parameters, its defaults pass its own
// Validate, and its usage line names every parameter.
func TestEveryWorkloadParsesItsDefaults(t *testing.T) {
	for _, w := range All() {
		specs := w.Params()
		names := map[string]bool{}
		for _, s := range specs {
			names[s.Name] = true
			if !strings.Contains(w.Usage(), "[-"+s.Name+" "+s.Placeholder()+"]") {
				t.Errorf("%s usage %q lacks %s", w.Name, w.Usage(), s.Name)
			}
		}
		if !names[sampler.DurationParam] || !names[sampler.WindowParam] {
			t.Errorf("%s lacks duration or window: %v", w.Name, names)
		}
		if _, err := w.Parse(nil, GuestEnv("/bin/kagent"), io.Discard); err != nil && w.Declared == "" {
			t.Errorf("%s refuses its defaults: %v", w.Name, err)
		}
		// Every flag of the set is a declared parameter, so Specs (the
		// docs, the host's list) misses none.
		fs := flag.NewFlagSet(w.Name, flag.ContinueOnError)
		w.bind(fs, Env{})
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name != w.Declared {
				n++
			}
		})
		if n != len(specs) {
			t.Errorf("%s: %d flags, %d parameters", w.Name, n, len(specs))
		}
	}
}

func TestParseRefuses(t *testing.T) {
	w, err := Lookup("rstat")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"positional":      {[]string{"-readers", "3", "extra"}, `unexpected argument "extra"`},
		"out of range":    {[]string{"-readers", "-1"}, "out of range 0..4096"},
		"cross-checked":   {[]string{"-duration", "2s", "-window", "1500ms"}, "longer than the traced half"},
		"unknown flag":    {[]string{"-reader", "3"}, "-reader"},
		"traced too long": {[]string{"-duration", "10s", "-traced", "10s"}, "traced=10s out of range"},
	} {
		if _, err := w.Parse(c.args, Env{}, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
	if _, err := w.Parse([]string{"-h"}, Env{}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
	if _, err := Lookup("fork-bomb"); err == nil || !strings.Contains(err.Error(), "rstat, execve, cgroup-attach, lru-drain") {
		t.Errorf("unknown workload: %v", err)
	}
}

// Parsing binds the values the workload then runs with: a run on an
// empty tracefs fails naming the path Env gave it, after the parameters
// were taken.
func TestParseBindsEnv(t *testing.T) {
	w, _ := Lookup("lru-drain")
	env := Env{SysctlVM: filepath.Join(t.TempDir(), "vm"), Tracefs: t.TempDir()}
	run, err := w.Parse([]string{"-trigger", "compact_memory", "-duration", "2s"}, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, err = run(context.Background())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(env.SysctlVM, "compact_memory")) {
		t.Fatalf("run: %v, want the trigger under Env's SysctlVM", err)
	}
}

// docsTable renders docs/workloads.md's parameter table from the
// declarations: a parameter every workload declares alike is one "all"
// row; duration is not a parameter of the experiment's params (it is
// workload.duration).
func docsTable() string {
	var b strings.Builder
	b.WriteString("| workload | parameter | default | range | meaning |\n|---|---|---|---|---|\n")
	shared := map[string]param.Spec{}
	for i, w := range All() {
		seen := map[string]param.Spec{}
		for _, s := range w.Params() {
			if i == 0 || reflect.DeepEqual(shared[s.Name], s) {
				seen[s.Name] = s
			}
		}
		shared = seen
	}
	row := func(w string, s param.Spec) {
		b.WriteString("| " + w + " | `" + s.Name + "` | " + docValue(s, s.Default) + " | " + docRange(s) + " | " + s.Doc + " |\n")
	}
	for _, w := range All() {
		for _, s := range w.Params() {
			if _, ok := shared[s.Name]; !ok {
				row(w.Name, s)
			}
		}
	}
	for _, s := range All()[0].Params() {
		if _, ok := shared[s.Name]; ok && s.Name != sampler.DurationParam {
			row("all", s)
		}
	}
	return b.String()
}

func docValue(s param.Spec, v string) string {
	if s.Kind == param.Int {
		return v
	}
	return "`" + v + "`"
}

func docRange(s param.Spec) string {
	if s.Kind == param.Choice {
		var q []string
		for _, c := range s.Choices {
			q = append(q, "`"+c+"`")
		}
		return strings.Join(q, ", ")
	}
	return docValue(s, s.Min) + ".." + docValue(s, s.Max)
}

// TestDocsParameterTable: docs/workloads.md's table is the declarations'.
func TestDocsParameterTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "workloads.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n## Parameters\n")
	if !ok {
		t.Fatal("docs/workloads.md has no Parameters section")
	}
	var table strings.Builder
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "|") {
			table.WriteString(line + "\n")
		} else if table.Len() > 0 {
			break
		}
	}
	if want := docsTable(); table.String() != want {
		t.Errorf("docs/workloads.md's parameter table differs from the workloads' declarations; it should read:\n\n%s", want)
	}
}

// Every descriptor is well formed: metrics named once, with unit, how
// and a direction; its primary and fallback metrics are judged metrics of
// its own; its holder's share is among its metrics; names are unique.
func TestDescriptorsWellFormed(t *testing.T) {
	for _, w := range []string{"rstat", "execve", "cgroup-attach", "lru-drain"} {
		if _, err := Lookup(w); err != nil {
			t.Errorf("built-in workload %s: %v", w, err)
		}
	}
	helpers := map[string]bool{}
	for _, w := range All() {
		seen := map[string]bool{}
		for _, s := range w.Metrics {
			if s.Name == "" || s.Unit == "" || s.How == "" || seen[s.Name] {
				t.Errorf("%s: %+v: empty field or listed twice", w.Name, s)
			}
			seen[s.Name] = true
			switch s.Direction {
			case metrics.Higher, metrics.Lower, metrics.Info:
			default:
				t.Errorf("%s %s: direction %q", w.Name, s.Name, s.Direction)
			}
		}
		if len(w.Primary) == 0 && w.Declared == "" {
			t.Errorf("%s has no primary metric", w.Name)
		}
		for _, n := range append(append([]string(nil), w.Primary...), w.FallbackPrimary...) {
			if s, ok := w.Metric(n); !ok || !s.Judged() {
				t.Errorf("%s: primary or fallback %s is not a judged metric of it", w.Name, n)
			}
		}
		if w.Holder != nil && !seen[w.Holder.Share.Name] {
			t.Errorf("%s: holder share %s not among its metrics", w.Name, w.Holder.Share.Name)
		}
		for _, h := range w.Helpers {
			if helpers[h.Name] || h.Run == nil {
				t.Errorf("%s: helper %q twice or without Run", w.Name, h.Name)
			}
			helpers[h.Name] = true
		}
	}
	if _, ok := Metric("rstat", "execs_per_sec"); ok {
		t.Error("rstat reports execs_per_sec?")
	}
	if s, ok := Metric("lru-drain", "drain_busy_p50_us"); !ok || !s.Judged() {
		t.Error("lru-drain's primary metric missing or not judged")
	}
	if Metrics("nope") != nil || Primary("nope") != nil {
		t.Error("an unknown workload has metrics")
	}
}
