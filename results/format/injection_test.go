package format_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// hostileDiff is a comparison whose candidate, metric and kernel report
// are named by an attacker: a '|' that would split a table row, HTML,
// backticks that would close a code span, a formula for a spreadsheet.
func hostileDiff(t *testing.T) *compare.Diff {
	t.Helper()
	const cand = "x|y<img src=x>"
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		for _, v := range []string{"base", cand} {
			r := comparetest.Res(v, results.StatusOK, 1000+float64(i), 40, "x")
			r.Metrics = append(r.Metrics,
				agentproto.Metric{Name: "m|<b>bold</b>", Unit: "n", Direction: agentproto.LowerIsBetter, Value: float64(i)},
				agentproto.Metric{Name: `=HYPERLINK("http://evil","x")`, Unit: "+1", Direction: agentproto.LowerIsBetter, Value: float64(i)})
			if v == cand {
				r.Findings = append(r.Findings, results.Finding{Kind: results.FindingWarning, Title: "a`|</code><img src=x>``", Count: 1})
			}
			rs = append(rs, r)
		}
	}
	d, err := compare.Compare(rs, "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tableCells counts a Markdown table row's cells: the '|' that are not
// escaped with a backslash, less one.
func tableCells(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n - 1
}

// stripCodeSpans drops Markdown's code spans (a run of n backticks up to
// the next run of exactly n) from each line of s.
func stripCodeSpans(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		var b strings.Builder
		for i := 0; i < len(line); {
			if line[i] != '`' {
				b.WriteByte(line[i])
				i++
				continue
			}
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			closed := -1
			for j := i + n; j < len(line); {
				if line[j] != '`' {
					j++
					continue
				}
				m := 0
				for j+m < len(line) && line[j+m] == '`' {
					m++
				}
				if m == n {
					closed = j + m
					break
				}
				j += m
			}
			if closed < 0 {
				b.WriteString(line[i : i+n])
				i += n
				continue
			}
			i = closed
		}
		out = append(out, b.String())
	}
	return strings.Join(out, "\n")
}

// TestMarkdownEscapesNames: in `diff -f markdown` every table row keeps
// its header's number of cells, and no name's HTML reaches the output.
func TestMarkdownEscapesNames(t *testing.T) {
	var b bytes.Buffer
	if err := format.WriteDiff(&b, hostileDiff(t), format.Markdown); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Inside a code span HTML is text; outside one it must not be there.
	text := stripCodeSpans(out)
	for _, bad := range []string{"<img", "<b>", "</code>"} {
		if strings.Contains(text, bad) {
			t.Errorf("markdown carries %q outside a code span:\n%s", bad, out)
		}
	}
	cells := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = 0
			continue
		}
		if cells == 0 {
			cells = tableCells(line)
			continue
		}
		if got := tableCells(line); got != cells {
			t.Errorf("row with %d cells in a table of %d: %s", got, cells, line)
		}
	}
}

// TestCSVCellsAreNotFormulas: a CSV cell that a spreadsheet would run as
// a formula (= + - @ first) is prefixed with ', so it is read as text.
func TestCSVCellsAreNotFormulas(t *testing.T) {
	var b bytes.Buffer
	if err := format.WriteDiff(&b, hostileDiff(t), format.CSV); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, row := range rows {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+@", rune(cell[0])) {
				t.Errorf("cell %q starts a formula", cell)
			}
			if cell != "" && cell[0] == '-' && strings.Trim(cell, "-0123456789.e+") != "" {
				t.Errorf("cell %q starts a formula", cell)
			}
			seen = seen || cell == `'=HYPERLINK("http://evil","x")`
		}
	}
	if !seen {
		t.Errorf("the metric's name is not there as text:\n%v", rows)
	}
}

// TestNightMarkdownFenceHoldsGuestOutput: console text that prints a
// ``` line, Markdown, HTML, or a line break CommonMark honours (a lone
// \r) stays inside the summary's code block, rendered by a CommonMark
// renderer: none of it becomes an image, a heading or a link, and what
// follows the block (the next case) still renders as a list item.
func TestNightMarkdownFenceHoldsGuestOutput(t *testing.T) {
	detail := "boot\n```\n![x](http://evil/x.png)\n# owned\n[link](http://evil/)\n| a | b |\n\n````\r## lone-cr\r\n<img src=y>\nend"
	r := &nightreport.Result{Experiment: "e", Outcome: verdict.KernelFailure, Describe: "v6.12<img src=x>|x",
		Cases: []nightreport.Case{
			{Variant: "v|w", Name: "boot", Status: nightreport.CaseError, Message: "crashed <script>", Detail: detail},
			{Variant: "v", Name: "after", Status: nightreport.CaseFailure, Message: "next case"},
		}}
	var b strings.Builder
	if err := format.WriteNightMarkdown(&b, []*nightreport.Result{r}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	var html bytes.Buffer
	if err := goldmark.Convert([]byte(out), &html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	for _, bad := range []string{"<img", "<script", "<h1", "<a ", "<h2>lone"} {
		if strings.Contains(page, bad) {
			t.Errorf("the summary renders %q:\n%s\n---- rendered:\n%s", bad, out, page)
		}
	}
	// One code block, holding every line of the guest's text, and the
	// next case a list item after it, not swallowed.
	if n := strings.Count(page, "<pre><code>"); n != 1 {
		t.Fatalf("%d code blocks, want 1:\n%s", n, page)
	}
	block := page[strings.Index(page, "<pre><code>"):strings.Index(page, "</code></pre>")]
	for _, line := range []string{"boot", "```", "![x](http://evil/x.png)", "# owned", "## lone-cr", "&lt;img src=y&gt;", "end"} {
		if !strings.Contains(block, line+"\n") {
			t.Errorf("the code block lacks %q:\n%s", line, block)
		}
	}
	if after := page[strings.Index(page, "</code></pre>"):]; !strings.Contains(after, "<li>") || !strings.Contains(after, "next case") {
		t.Errorf("the case after the block is not a list item:\n%s", page)
	}
	if strings.Contains(block, "next case") {
		t.Errorf("the block swallowed the next case:\n%s", block)
	}
}

// A summary cut at GitHub's limit inside a code block: the note that says
// so starts at the first column, which ends the list item and its block,
// so it renders as text, not as console output.
func TestNightMarkdownCutClosesNoBlockOpen(t *testing.T) {
	// A few cases, the last one's console text running past the
	// limit: the cut falls inside its block.
	var cases []nightreport.Case
	for i := 0; i < 3; i++ {
		cases = append(cases, nightreport.Case{Variant: "v", Name: fmt.Sprint("c", i), Status: nightreport.CaseError, Message: "m", Detail: "short\n"})
	}
	line := strings.Repeat("x", 40000)
	cases = append(cases, nightreport.Case{Variant: "v", Name: "flood", Status: nightreport.CaseError, Message: "m", Detail: strings.Repeat(line+"\n", 30)})
	var b strings.Builder
	err := format.WriteNightMarkdown(&b, []*nightreport.Result{{Experiment: "e", Outcome: verdict.KernelFailure, Cases: cases}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() > 1<<20 {
		t.Fatalf("summary of %d bytes, over 1 MiB", b.Len())
	}
	var html bytes.Buffer
	if err := goldmark.Convert([]byte(b.String()), &html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	last := strings.LastIndex(page, "</code></pre>")
	note := strings.Index(page, "cut at GitHub")
	if last < 0 || note < last || strings.Contains(page[note:], "</code>") {
		t.Fatalf("the cut note is inside a code block:\n%s", page[max(0, len(page)-2000):])
	}
}
