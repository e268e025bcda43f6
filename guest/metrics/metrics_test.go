package metrics

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
