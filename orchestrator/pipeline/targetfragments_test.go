package pipeline

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
)

// targetsRepo is a git repository of a fake kernel tree with kselftest
// targets: mqueue with a config, clone3 without, evil with a line that
// is no Kconfig assignment. Tag "base" is the baseline's tree; tag
// "other", a candidate's, changes mqueue's config (a patch's tree may).
func targetsRepo(t *testing.T) string {
	t.Helper()
	dir, git, write := gitRepo(t)
	ks := selftests.KselftestDir + "/"
	write("Makefile", "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\n")
	write(ks+"Makefile", "TARGETS += mqueue\nTARGETS += clone3\nTARGETS += evil\n")
	write(ks+"mqueue/config", "CONFIG_POSIX_MQUEUE=y\nCONFIG_NET=y\n")
	write(ks+"clone3/Makefile", "include ../lib.mk\n")
	write(ks+"evil/config", "CONFIG_A=y\n$(shell touch /tmp/owned)\n")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	git("tag", "base")
	write(ks+"mqueue/config", "CONFIG_POSIX_MQUEUE=y\nCONFIG_NET=y\nCONFIG_OTHER=y\n")
	git("commit", "-q", "-am", "other")
	git("tag", "other")
	return dir
}

// TestPlanMergesTargetFragments: the named targets' fragments go into
// every variant's request, read from the base tree (a candidate at
// another ref gets the baseline's), before kernel.fragments (which win
// a conflict), marked Wanted; a target without a config adds nothing;
// the cache key changes with them and only with them; an experiment
// without targets or with target_configs: off gets exactly the requests
// it got before; turning the gate off (as a metric bisect does) keeps the
// run's kernels.
func TestPlanMergesTargetFragments(t *testing.T) {
	repo := targetsRepo(t)
	ctx := context.Background()
	base := &patches.Variant{Name: "base"}
	cand := &patches.Variant{Name: "cand", Ref: "other"}
	fam := &patches.Family{Name: "refs", Workload: "rstat", Baseline: "base", Variants: map[string]*patches.Variant{"base": base, "cand": cand}}
	sel := &variants.Selection{Family: fam, Variants: []*patches.Variant{base, cand}}
	cacheDir := t.TempDir()
	plan := func(targets []string, reps int, mode config.TargetConfigs) []BuildPlan {
		t.Helper()
		cfg := fakeConfig(t, repo, "base")
		cfg.CacheDir = cacheDir
		cfg.Kernel.Fragments = []string{"guest.config"}
		cfg.Selftests = config.Selftests{Targets: targets, Repetitions: reps, TargetConfigs: mode}
		plans, err := Plan(ctx, cfg, sel)
		if err != nil {
			t.Fatalf("targets %v: %v", targets, err)
		}
		return plans
	}
	keys := func(plans []BuildPlan) []string { return []string{plans[0].Key, plans[1].Key} }
	names := func(fs []kernel.Fragment) (out []string) {
		for _, f := range fs {
			n := f.Name
			if f.Wanted {
				n += " (wanted)"
			}
			out = append(out, n)
		}
		return out
	}

	none := plan(nil, 2, "")
	if got := names(none[0].Request.Fragments); !reflect.DeepEqual(got, []string{"guest.config"}) {
		t.Fatalf("no targets: fragments %q, want guest.config alone", got)
	}
	merged := plan([]string{"clone3", "mqueue"}, 2, config.TargetConfigsMerge)
	want := []string{"kselftest target mqueue (tools/testing/selftests/mqueue/config) (wanted)", "guest.config"}
	for i, p := range merged {
		if got := names(p.Request.Fragments); !reflect.DeepEqual(got, want) {
			t.Errorf("variant %s: fragments %q, want %q", p.Variant.Name, got, want)
		}
		if got := string(p.Request.Fragments[0].Data); got != "CONFIG_POSIX_MQUEUE=y\nCONFIG_NET=y\n" {
			t.Errorf("variant %s: mqueue's fragment %q, want the base tree's", p.Variant.Name, got)
		}
		if p.Key == none[i].Key {
			t.Errorf("variant %s: the same cache key with and without the targets' fragments", p.Variant.Name)
		}
	}
	if !reflect.DeepEqual(merged[0].Request.Fragments, merged[1].Request.Fragments) {
		t.Error("the two variants got different fragments")
	}
	// The run's log (and a dry run's) says what is merged; nothing
	// without targets.
	for _, tc := range []struct {
		plans []BuildPlan
		want  string
	}{{merged, "kernel config: kselftest target mqueue (tools/testing/selftests/mqueue/config) merged into every variant's kernel (2 option(s); selftests.target_configs: off builds without)"}, {none, ""}} {
		var said []string
		ReportTargetFragments(tc.plans, func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) })
		if strings.Join(said, "\n") != tc.want {
			t.Errorf("said %q, want %q", said, tc.want)
		}
	}
	if got := keys(plan([]string{"clone3", "mqueue"}, 0, "")); !reflect.DeepEqual(got, keys(merged)) {
		t.Errorf("the gate off (a metric bisect): keys %v, want the run's %v", got, keys(merged))
	}
	// The default (empty) is merge.
	if got := keys(plan([]string{"clone3", "mqueue"}, 2, "")); !reflect.DeepEqual(got, keys(merged)) {
		t.Errorf("target_configs empty: keys %v, want merge's %v", got, keys(merged))
	}
	// Nothing merged, the kernels are those without targets.
	for _, tc := range []struct {
		name    string
		targets []string
		reps    int
		mode    config.TargetConfigs
	}{
		{"a target without a config", []string{"clone3"}, 2, ""},
		{"target_configs: off", []string{"clone3", "mqueue"}, 2, config.TargetConfigsOff},
	} {
		p := plan(tc.targets, tc.reps, tc.mode)
		if got := keys(p); !reflect.DeepEqual(got, keys(none)) || !reflect.DeepEqual(p[0].Request.Fragments, none[0].Request.Fragments) {
			t.Errorf("%s: keys %v, fragments %q; want those without targets (%v)", tc.name, got, names(p[0].Request.Fragments), keys(none))
		}
	}
}

// A target's hostile config is refused before anything builds, naming
// the target, the file and the line, and the way out; an unknown target
// is refused with the tree's list (exit 2).
func TestPlanRefusesAHostileTargetConfig(t *testing.T) {
	repo := targetsRepo(t)
	v := &patches.Variant{Name: "base"}
	fam := &patches.Family{Name: "quick", Workload: "rstat", Baseline: "base", Variants: map[string]*patches.Variant{"base": v}}
	sel := &variants.Selection{Family: fam, Variants: []*patches.Variant{v}}
	cfg := fakeConfig(t, repo, "base")
	cfg.Selftests = config.Selftests{Targets: []string{"mqueue", "evil"}, Repetitions: 1}
	_, err := Plan(context.Background(), cfg, sel)
	var le *kernel.FragmentLineError
	if !errors.As(err, &le) || le.File != "tools/testing/selftests/evil/config" || le.Line != 2 {
		t.Fatalf("evil's config: %v, want a FragmentLineError at its line 2", err)
	}
	for _, w := range []string{"kselftest target evil", "selftests.target_configs: off"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
	cfg.Selftests.Targets = []string{"nosuch"}
	var ue *selftests.UnknownTargetsError
	if _, err := Plan(context.Background(), cfg, sel); !errors.As(err, &ue) {
		t.Errorf("an unknown target: %v, want an UnknownTargetsError", err)
	}
}
