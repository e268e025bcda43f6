package compare

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
)

// An all-infra candidate has no metric: every format must still say it
// was unmeasured, and none may say "no significant regression".
func TestEveryFormatSaysUnmeasured(t *testing.T) {
	rs := append(mixed("base", results.StatusTimeout, 0, 5), cells("cand", results.StatusInfra, 5)...)
	d, err := Compare(rs, "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**Unmeasured (not passed):**") || strings.Contains(b.String(), "No significant regression") {
		t.Fatalf("markdown:\n%s", b.String())
	}
	b.Reset()
	if err := d.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows[1:] {
		if len(r) != len(rows[0]) {
			t.Fatalf("row %q has %d columns, header %d", r, len(r), len(rows[0]))
		}
		found = found || (r[1] == "cand" && r[len(r)-1] == string(Unmeasured))
	}
	if !found {
		t.Fatalf("csv has no unmeasured row for cand: %q", rows)
	}
	b.Reset()
	if err := d.WriteLKP(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "UNMEASURED: no cell says anything about its kernel") {
		t.Fatalf("lkp:\n%s", b.String())
	}
}
