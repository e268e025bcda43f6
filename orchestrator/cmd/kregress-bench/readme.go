package main

// The README's durations block: the figures a newcomer asks for first
// (the first run, a cached run, a night, a bisect), quoted from one
// generation of docs/benchmarks.md, with the line that names that
// generation. make bench rewrites it with the page; by hand it is never
// edited, so the README cannot drift from the page it quotes. A page of
// several runs (-keep-unmeasured) is quoted row by row, each with its run.

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The markers around the block in README.md.
const (
	readmeBegin = "<!-- durations: written by make bench from docs/benchmarks.md (kregress-bench -readme); do not edit -->"
	readmeEnd   = "<!-- end of durations -->"
)

// generationLine names run g of a page as the block's last line does:
// when, at which commit and on what host (its name and cores).
func generationLine(g generation) string {
	s := "measured " + g.At
	if g.Commit != "" {
		s += " at commit " + g.Commit
	}
	host, _, _ := strings.Cut(g.Host, ";")
	return s + " on " + host
}

// quoted is one figure the block quotes: its text and the run that
// measured it (-1: none, the page lacks it).
type quoted struct {
	Text string
	Gen  int
}

// minutes quotes the first figure whose label starts with prefix, in
// minutes, or Gen -1 when the page has none that reads.
func minutes(p benchPage, prefix string) quoted {
	for _, f := range p.Figures {
		if !strings.HasPrefix(f.Label, prefix) {
			continue
		}
		s, err := strconv.ParseFloat(f.Value, 64)
		if err != nil {
			return quoted{Gen: -1}
		}
		return quoted{Text: strconv.FormatFloat(s/60, 'f', 1, 64) + " min", Gen: f.Gen}
	}
	return quoted{Gen: -1}
}

// cells matches the cells a figure's label counts.
var cells = regexp.MustCompile(`\((\d+) cells`)

// bootsIn is " (N boots)" from the label of the figure starting with
// prefix, or "" when it says none.
func bootsIn(p benchPage, prefix string) string {
	for _, f := range p.Figures {
		if m := cells.FindStringSubmatch(f.Label); m != nil && strings.HasPrefix(f.Label, prefix) {
			return " (" + m[1] + " boots)"
		}
	}
	return ""
}

// both is a and b joined by join when the page has both, from one run.
func both(a, b quoted, join func(a, b string) string) quoted {
	if a.Gen < 0 || b.Gen < 0 || a.Gen != b.Gen {
		return quoted{Gen: -1}
	}
	return quoted{Text: join(a.Text, b.Text), Gen: a.Gen}
}

// durationsBlock is the README's block quoting page (markers included).
// Its figures from one run, it names that run below the table; from
// several, each row names its run in a "measured" column.
func durationsBlock(p benchPage) string {
	firstRun := both(minutes(p, strings.TrimSpace(labelFirstVerdict)), minutes(p, strings.TrimSpace(labelFirstDone)), func(v, d string) string {
		return "first verdict after " + v + ", done after " + d
	})
	night := both(minutes(p, strings.TrimSpace(labelNightFirst)), minutes(p, strings.TrimSpace(labelNightJudged)), func(a, b string) string {
		return a + " (the first, which becomes the baseline), " + b + " (the next, judged)"
	})
	bisect := minutes(p, "bisect of 8 commits")
	if per := minutes(p, "build time per tried commit"); per.Gen >= 0 && per.Gen == bisect.Gen {
		bisect.Text += " (" + per.Text + " to build each commit tried)"
	}
	rows := []struct {
		what string
		q    quoted
	}{
		{"the first `make run`: four kernels compiled from a cold cache, then the default experiment's boots", firstRun},
		{"a later run of the default experiment, kernels cached" + bootsIn(p, "default experiment, cached builds"), minutes(p, "default experiment, cached builds")},
		{"a night of one experiment, kernels cached", night},
		{"a bisect of 8 commits", bisect},
	}
	var cited []int
	for _, r := range rows {
		if r.q.Gen >= 0 && !slices.Contains(cited, r.q.Gen) {
			cited = append(cited, r.q.Gen)
		}
	}
	slices.Sort(cited)
	several := len(cited) > 1
	var b strings.Builder
	b.WriteString(readmeBegin + "\n")
	if several {
		b.WriteString("| what | how long | measured |\n|---|---|---|\n")
	} else {
		b.WriteString("| what | how long |\n|---|---|\n")
	}
	for _, r := range rows {
		switch {
		case !several && r.q.Gen < 0:
			fmt.Fprintf(&b, "| %s | not in this generation |\n", r.what)
		case !several:
			fmt.Fprintf(&b, "| %s | %s |\n", r.what, r.q.Text)
		case r.q.Gen < 0:
			fmt.Fprintf(&b, "| %s | not on the page | |\n", r.what)
		default:
			fmt.Fprintf(&b, "| %s | %s | %s |\n", r.what, r.q.Text, p.Gens[r.q.Gen].At)
		}
	}
	if !several {
		g := p.Gens[0]
		if len(cited) == 1 {
			g = p.Gens[cited[0]]
		}
		fmt.Fprintf(&b, "\nQuoted from [docs/benchmarks.md](docs/benchmarks.md), %s.\n", generationLine(g))
	} else {
		var runs []string
		for _, i := range cited {
			runs = append(runs, generationLine(p.Gens[i]))
		}
		fmt.Fprintf(&b, "\nQuoted from [docs/benchmarks.md](docs/benchmarks.md), figures of %d runs: %s.\n", len(cited), strings.Join(runs, "; "))
	}
	b.WriteString(readmeEnd + "\n")
	return b.String()
}

// withBlock is text with its durations block replaced by block.
func withBlock(text, block string) (string, error) {
	i := strings.Index(text, readmeBegin)
	j := strings.Index(text, readmeEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("no durations block (%q ... %q) to replace", readmeBegin, readmeEnd)
	}
	return text[:i] + block + strings.TrimPrefix(text[j+len(readmeEnd):], "\n"), nil
}

// writeREADME rewrites the durations block of the README at path from
// the benchmarks page at pagePath.
func writeREADME(path, pagePath string) error {
	page, err := readPage(pagePath)
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text, err := withBlock(string(readme), durationsBlock(page))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writePage(path, text)
}
