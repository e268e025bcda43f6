package format

import "testing"

// Every diff format has its writer, and every writer is a listed format.
func TestDiffFormatsHaveWriters(t *testing.T) {
	for _, f := range DiffFormats {
		if diffWriters[f] == nil {
			t.Errorf("diff format %s has no writer", f)
		}
	}
	if len(diffWriters) != len(DiffFormats) {
		t.Errorf("%d diff writers, %d diff formats", len(diffWriters), len(DiffFormats))
	}
	if got, want := Describe([]string{"csv", "lkp", "html"}), "csv, lkp (the 0-day bot's %stddev %change view), html (a self-contained report with plots)"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
