package format_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

// Defect: a candidate whose every cell was infra_error was "no significant
// change" and passed --fail-on-regression. It is unmeasured: its own
// verdict, its own error (exit 1), never a pass, never a regression.
func TestAllInfraCandidateIsUnmeasured(t *testing.T) {
	rs := append(comparetest.Mixed("base", results.StatusTimeout, 0, 5), comparetest.Cells("cand", results.StatusInfra, 4)...)
	rs = append(rs, comparetest.Cells("cand", results.StatusIncomplete, 1)...)
	rs = append(rs, comparetest.Mixed("fine", results.StatusTimeout, 0, 5)...)
	d, err := compare.Compare(rs, "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := d.Failures["cand"]
	if f.Verdict != verdict.Unmeasured || f.Rule != compare.RuleNoJudgedCell || !strings.Contains(f.Reason, "1 incomplete, 4 infra_error") {
		t.Fatalf("all infra: %+v", f)
	}
	if len(d.Failing()) != 0 {
		t.Fatalf("an unmeasured candidate is not a regression of the kernel: %q", d.Failing())
	}
	err = compare.UnmeasuredErr(d)
	var ue *compare.UnmeasuredError
	if !errors.As(err, &ue) || len(ue.Sets) != 1 || !strings.HasPrefix(ue.Sets[0], "cand: no cell says anything") || strings.Contains(err.Error(), "unmeasured") {
		t.Fatalf("UnmeasuredErr: %v", err)
	}
	var b bytes.Buffer
	format.WriteDiff(&b, d, format.Table)
	// "unmeasured" once on the verdict line, not "unmeasured: cand: unmeasured:".
	if !strings.Contains(b.String(), "verdict: unmeasured: cand: no cell says anything about its kernel") || strings.Contains(b.String(), "unmeasured: cand: unmeasured") || strings.Contains(b.String(), "no significant change") ||
		!strings.Contains(b.String(), "UNMEASURED: no cell judged") {
		t.Fatalf("table:\n%s", b.String())
	}
	b.Reset()
	if err := format.WriteDiff(&b, d, format.JSON); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Verdict    string   `json:"verdict"`
		Unmeasured []string `json:"unmeasured"`
	}
	if err := json.Unmarshal(b.Bytes(), &js); err != nil || js.Verdict != "unmeasured" || len(js.Unmeasured) != 1 {
		t.Fatalf("json verdict %+v (%v)", js, err)
	}
	b.Reset()
	format.WriteDiff(&b, d, format.Markdown)
	if !strings.Contains(b.String(), "**Unmeasured (not passed):** cand") {
		t.Fatalf("markdown:\n%s", b.String())
	}
	// Measured candidates leave no error.
	d, _ = compare.Compare(append(comparetest.Mixed("base", results.StatusTimeout, 0, 5), comparetest.Mixed("x", results.StatusTimeout, 0, 5)...), "base", compare.Options{})
	if err := compare.UnmeasuredErr(d); err != nil {
		t.Fatalf("measured: %v", err)
	}
}
