package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/kregress/kregress/results/compare"
)

// writeSelftests prints the gate's block of the terminal table: each
// set's outcomes, then each candidate's changes against the baseline.
func writeSelftests(w io.Writer, d *compare.Diff) {
	ran := false
	for _, v := range d.Variants {
		ran = ran || v.Selftests.Runs > 0
	}
	if !ran {
		return
	}
	fmt.Fprintln(w, "\nselftests (correctness gate):")
	for _, v := range d.Variants {
		writeSelftestSet(w, v)
	}
	for _, v := range d.Variants[1:] {
		ch := d.SelftestChanges[v.Name]
		if len(ch) == 0 {
			fmt.Fprintf(w, "  %-20s same outcomes as %s\n", v.Name, d.Baseline)
			continue
		}
		fmt.Fprintf(w, "  %-20s DIFFERS from %s:\n", v.Name, d.Baseline)
		for _, c := range ch {
			fmt.Fprintf(w, "    %s: %s -> %s (%s)\n", c.Test, c.Base, c.Cand, selftestChangeLabel(c))
		}
	}
}

// writeSelftestSet prints one set's selftest outcomes: counts, known and
// unexplained failures, suspects, flaky and stale tests.
func writeSelftestSet(w io.Writer, v *compare.Variant) {
	st := v.Selftests
	if st.Runs == 0 {
		fmt.Fprintf(w, "  %-20s no result\n", v.Name)
		return
	}
	fmt.Fprintf(w, "  %-20s %d tests in %d run(s): %s\n", v.Name, len(st.Outcomes), st.Runs, st.Counts())
	if n := len(st.Known); n > 0 {
		fmt.Fprintf(w, "  %-20s of the failures, %d known (diagnosed for this guest: kregress selftests known), %d unexplained%s\n", "", n, len(st.Unexplained), listed(st.Unexplained))
	} else if n := len(st.Unexplained); n > 0 {
		fmt.Fprintf(w, "  %-20s %d unexplained failure(s)%s\n", "", n, listed(st.Unexplained))
	}
	var suspects []string
	for _, k := range st.Unexplained {
		if why := st.Boots[k].Suspect(); why != "" {
			suspects = append(suspects, k+": "+why)
		}
	}
	if len(suspects) > 0 {
		fmt.Fprintf(w, "  %-20s suspect, failed only in boots on a loaded host: %s\n", "", strings.Join(suspects, "; "))
	}
	if len(st.Flaky) > 0 {
		fmt.Fprintf(w, "  %-20s failed, then passed when rerun in the same boot (flaky, not flagged): %s\n", "", strings.Join(st.Flaky, ", "))
	}
	if len(st.Stale) > 0 {
		fmt.Fprintf(w, "  %-20s known failures that passed here (expectation out of date?): %s\n", "", strings.Join(st.Stale, ", "))
	}
}

// selftestChangeLabel says what a change of outcome means for the gate.
func selftestChangeLabel(c compare.SelftestChange) string {
	label := map[string]string{compare.NewFailure: "NEW FAILURE", compare.Fixed: "fixed", compare.Changed: "changed", compare.Flaky: "known flaky on this guest: not flagged"}[c.Kind]
	if c.Kind == compare.Changed && c.FlakyOnRerun() {
		label = "changed: failed, then passed on a rerun in the same boot; not flagged"
	}
	switch {
	case c.Kind == compare.Unconfirmed:
		label = fmt.Sprintf("new failure, UNCONFIRMED: failed in %d of %d boot(s); another boot would confirm it; not flagged", c.FailedBoots, c.Boots)
	case c.Kind == compare.NewFailure && c.Boots > 0:
		label = fmt.Sprintf("NEW FAILURE in %d of %d boots", c.FailedBoots, c.Boots)
	}
	if c.Suspect != "" {
		label += "; suspect: " + c.Suspect
	}
	if c.BaseSuspect != "" {
		label += "; the baseline failed it only on a loaded host: " + c.BaseSuspect
	}
	return label
}

func listed(tests []string) string {
	if len(tests) == 0 {
		return ""
	}
	return ": " + strings.Join(tests, ", ")
}
