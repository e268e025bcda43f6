package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// glossaryPages are read in this order by a newcomer: the README, then
// the verdict page it sends them to. A word one page defines may be used
// anywhere in the pages after it.
var glossaryPages = []string{"README.md", "docs/verdict.md"}

// boldTerm is a bold span that defines a word: one to three words, not a
// sentence (a bold lead-in such as "**What it costs.**" ends with a stop).
var boldTerm = regexp.MustCompile(`\*\*([A-Za-z][A-Za-z0-9 -]{0,40}?)\*\*`)

// prose is text with its fenced blocks and code spans blanked (their
// lengths kept, so offsets still compare): a word in quoted output is the
// program's, not a use the reader must already understand.
func prose(text string) string {
	lines := strings.Split(text, "\n")
	inFence := false
	for i, l := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(l), "```")
		if fence || inFence {
			lines[i] = strings.Repeat(" ", len(l))
		}
		if fence {
			inFence = !inFence
		}
	}
	return inlineCode.ReplaceAllStringFunc(strings.Join(lines, "\n"), func(s string) string { return strings.Repeat(" ", len(s)) })
}

// termUse matches a use of term: the whole word or phrase, any case, a
// plural or possessive allowed.
func termUse(term string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(term) + `(s|es|'s)?($|[^A-Za-z0-9_-])`)
}

// earlyUses lists, for pages read in order, each bold-defined word used
// in prose before its definition (in its own page, or in a page read
// before the one defining it), with the line of the use.
func earlyUses(pages []string, texts map[string]string) []string {
	type def struct {
		page   int
		offset int
	}
	defs := map[string]def{}
	var order []string
	for i, p := range pages {
		for _, m := range boldTerm.FindAllStringSubmatchIndex(texts[p], -1) {
			term := strings.ToLower(texts[p][m[2]:m[3]])
			if len(strings.Fields(term)) > 3 || strings.HasSuffix(term, ".") {
				continue
			}
			if _, ok := defs[term]; !ok {
				defs[term] = def{i, m[0]}
				order = append(order, term)
			}
		}
	}
	var early []string
	for _, term := range order {
		d := defs[term]
		re := termUse(term)
		for i := 0; i <= d.page; i++ {
			text := prose(texts[pages[i]])
			for _, m := range re.FindAllStringIndex(text, -1) {
				if i == d.page && m[0] >= d.offset {
					break
				}
				line := strings.Count(texts[pages[i]][:m[0]], "\n") + 1
				early = append(early, fmt.Sprintf("%s:%d uses %q before %s defines it", pages[i], line, term, pages[d.page]))
			}
		}
	}
	return early
}

// TestGlossaryOrder: every word README.md and docs/verdict.md define in
// bold is used in their prose only after its definition, so a newcomer
// reading them in order never meets a term before it is explained.
func TestGlossaryOrder(t *testing.T) {
	texts := map[string]string{}
	for _, p := range glossaryPages {
		b, err := os.ReadFile(filepath.Join(repoRoot, p))
		if err != nil {
			t.Fatal(err)
		}
		texts[p] = string(b)
	}
	for _, e := range earlyUses(glossaryPages, texts) {
		t.Error(e)
	}
}

// The check finds a term used before its definition, in its own page and
// in an earlier one, and ignores quoted output and bold lead-ins.
func TestGlossaryCheckFindsEarlyUse(t *testing.T) {
	texts := map[string]string{
		"a.md": "A widget here.\n\n`a gadget in code`\n\n**What it costs.** Nothing.\n\nA **gadget** is a thing.\n",
		"b.md": "Gadgets and widgets. A **widget** is another.\n",
	}
	got := earlyUses([]string{"a.md", "b.md"}, texts)
	if len(got) != 2 || !strings.Contains(got[0]+got[1], `a.md:1 uses "widget"`) || !strings.Contains(got[0]+got[1], `b.md:1 uses "widget"`) {
		t.Fatalf("early uses %q: want widget in a.md:1 and b.md:1, nothing of gadget or costs", got)
	}
}

// checklistItem is one numbered question of CONTRIBUTING.md's checklist,
// up to the next one or the end of the list.
var checklistItem = regexp.MustCompile(`(?ms)^(\d+)\. (.*?)(?:\n\d+\. |\n\n)`)

// checklistProblems lists what is wrong with CONTRIBUTING.md's newcomer's
// checklist: not eight questions, a question without a link to where it
// is answered, or a link to a page or heading that does not exist.
func checklistProblems(t *testing.T, contributing string) []string {
	const head = "## A newcomer's checklist\n"
	i := strings.Index(contributing, head)
	if i < 0 {
		return []string{"CONTRIBUTING.md has no " + strings.TrimSpace(head)}
	}
	section := contributing[i+len(head):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	var problems []string
	n := 0
	for rest := section; ; {
		m := checklistItem.FindStringSubmatchIndex(rest)
		if m == nil {
			break
		}
		n++
		if item := rest[m[4]:m[5]]; !mdLink.MatchString(item) {
			problems = append(problems, fmt.Sprintf("question %s has no link to its answer: %q", rest[m[2]:m[3]], item))
		}
		rest = rest[m[5]:]
	}
	if n != 8 {
		problems = append(problems, fmt.Sprintf("%d questions, want the 8 basics", n))
	}
	return append(problems, brokenLinks(t, map[string]string{"CONTRIBUTING.md": section})...)
}

// TestNewcomerChecklist: CONTRIBUTING.md keeps the 8 basics a newcomer
// must find in the README, each with a link to where it is answered, and
// every link's page and heading exist; a renamed heading fails it.
func TestNewcomerChecklist(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checklistProblems(t, string(b)) {
		t.Error(p)
	}
	renamed := strings.Replace(string(b), "README.md#read-the-verdict", "README.md#reading-the-verdict", 1)
	if p := checklistProblems(t, renamed); len(p) != 1 || !strings.Contains(p[0], "reading-the-verdict") {
		t.Errorf("a link to a heading the README lacks: want it reported, got %q", p)
	}
	dropped := regexp.MustCompile(`(?m)^8\. `).ReplaceAllString(string(b), "   ")
	if p := checklistProblems(t, dropped); len(p) == 0 {
		t.Error("a checklist of 7 questions passed")
	}
}
