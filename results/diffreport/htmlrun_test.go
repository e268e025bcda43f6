package diffreport

import (
	"bytes"
	"context"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/export"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/store/storetest"
)

// The HTML page of a diff of one stored run names the command that adds
// the boots an unjudged row needs (the run is known); a diff of two sets
// names only how many boots per side (neither run alone would do), as
// does a run read from an exported file.
func TestHTMLNamesTheRunToResume(t *testing.T) {
	s := storetest.SQLite(t)
	run := storetest.AddReadsRun(t, s, "repetitions: 3\n", []string{"stock", "fast"}, 3)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05}
	rep, err := Whole(ctx, s, "1", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	// 3+3 boots, one metric: the smallest p is 2/C(6,3) = 0.1 > 0.05;
	// 4+4 reaches 2/C(8,4) = 0.029.
	page := html.UnescapeString(render(t, rep, format.HTML))
	if want := "4 boots per side would judge it: kregress run --resume 1 --repetitions 4"; run.ID != 1 || !strings.Contains(page, want) {
		t.Fatalf("run %d's page lacks %q:\n%s", run.ID, want, page)
	}
	// The same run read from an exported file cannot be resumed.
	rs, err := s.Results(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := export.Write(&file, run, rs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run1.json")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := Whole(ctx, s, path, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	page = html.UnescapeString(render(t, fromFile, format.HTML))
	if !strings.Contains(page, "4 boots per side would judge it") || strings.Contains(page, "--resume") {
		t.Fatalf("an exported file's page: want the boots per side and no command:\n%s", page)
	}
	two, err := Two(ctx, s, s, "1", "1", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	page = html.UnescapeString(render(t, two, format.HTML))
	if !strings.Contains(page, "boots per side would judge it") || strings.Contains(page, "--resume") {
		t.Fatalf("two sets' page: want the boots per side and no command:\n%s", page)
	}
}
