package export

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// Each export format is the writer of its name; every file imported is
// said, and the first that fails stops the import.
func TestWriteFormatAndImportAll(t *testing.T) {
	s := storetest.SQLite(t)
	r := storetest.AddRun(t, s, results.RunComplete, []string{"a"})
	var doc bytes.Buffer
	if err := WriteFormat(&doc, "json", r, nil); err != nil || !strings.HasPrefix(doc.String(), `{"schema":"kregress.export/v1"`) {
		t.Errorf("json: %v\n%s", err, doc.String())
	}
	// benchfmt is the benchmark format's writer (which wants ok results).
	var bench bytes.Buffer
	if err, want := WriteFormat(&bench, "benchfmt", r, nil), WriteBenchfmt(&bench, r, nil); err == nil || err.Error() != want.Error() {
		t.Errorf("benchfmt: %v, want WriteBenchfmt's %v", err, want)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "run.json")
	if err := os.WriteFile(good, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every file is read before anything is stored: a missing one
	// refuses them all.
	if read, err := ReadFiles([]string{good, filepath.Join(dir, "missing.json"), good}); err == nil || read != nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("ReadFiles with a missing file: %v, %v", read, err)
	}
	read, err := ReadFiles([]string{good, good})
	if err != nil {
		t.Fatal(err)
	}
	var said bytes.Buffer
	if err := ImportAll(t.Context(), s, read, &said); err != nil || strings.Count(said.String(), "imported "+good+" as run ") != 2 {
		t.Errorf("ImportAll: %v, said %q; want both imported and said", err, said.String())
	}
}
