package metrics

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCatalogWellFormed(t *testing.T) {
	if len(Workloads()) != 4 {
		t.Fatalf("workloads %v", Workloads())
	}
	for _, w := range Workloads() {
		seen := map[string]bool{}
		for _, s := range For(w) {
			if s.Name == "" || s.Unit == "" || s.How == "" || seen[s.Name] {
				t.Errorf("%s: %+v: empty field or listed twice", w, s)
			}
			seen[s.Name] = true
			switch s.Direction {
			case higher, lower, info:
			default:
				t.Errorf("%s %s: direction %q", w, s.Name, s.Direction)
			}
		}
	}
	if _, ok := Lookup("rstat", "execs_per_sec"); ok {
		t.Error("rstat reports execs_per_sec?")
	}
	if s, ok := Lookup("lru-drain", "drain_busy_p50_us"); !ok || !s.Judged() {
		t.Error("lru-drain's primary metric missing or not judged")
	}
}

// metricLiteral is an agentproto.Metric built with its name in place: the
// workloads must take name, unit and direction from this catalog.
var metricLiteral = regexp.MustCompile(`Metric\{Name:|\{Name: "[a-z_]+", Unit:`)

func TestWorkloadsUseTheCatalog(t *testing.T) {
	files, err := filepath.Glob("../workload/*/*.go")
	if err != nil || len(files) < 5 {
		t.Fatalf("workload sources: %v %v", files, err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if loc := metricLiteral.FindIndex(data); loc != nil {
			t.Errorf("%s builds a metric by hand (%q): use guest/metrics", f, data[loc[0]:loc[1]])
		}
	}
}
