package main

// -keep-unmeasured: a run that measures some parts of the bench (the
// first run and the nights take an hour; the cold builds and the bisect
// another) updates the page without losing the figures of the parts it
// skipped. A part is replaced whole, never row by row, so a figure and
// its details always come from one run.

import (
	"fmt"
	"strings"
)

// benchPart is one thing the bench measures, with the figures that are
// its rows on the page.
type benchPart struct {
	Name string
	// Prefixes start the labels of its figures (its details follow them).
	Prefixes []string
}

// benchParts are the parts in the order the bench measures them and
// the page lists them.
var benchParts = []benchPart{
	{"cold build", []string{"cold build, ", "second variant, "}},
	{"git refs", []string{"git repository from the tarball", "git ref "}},
	{"bisect", []string{"bisect of "}},
	{"cached rerun", []string{"rerun, "}},
	{"boots", []string{"boot to SSH ready, "}},
	{"default experiment", []string{"default experiment, "}},
	{"sensitivity", []string{"CV between boots, ", "null comparison, "}},
	{"first run", []string{labelFirstVerdict}},
	{"night", []string{labelNightFirst}},
}

// detailsPart is the part whose runs write the lines behind the figures
// (each boot's value of the null comparison).
const detailsPart = "sensitivity"

// partOf is the index in benchParts of the part a figure's label belongs
// to, or -1.
func partOf(label string) int {
	for i, part := range benchParts {
		for _, prefix := range part.Prefixes {
			if strings.HasPrefix(label, prefix) {
				return i
			}
		}
	}
	return -1
}

// rowsByPart groups a page's figures by part: each figure with the
// details after it, in page order. A figure of no known part is an error:
// keeping it would keep it forever, dropping it would lose it.
func rowsByPart(p benchPage) ([][]figureRow, error) {
	byPart := make([][]figureRow, len(benchParts))
	part := -1
	for _, f := range p.Figures {
		if !f.Detail {
			if part = partOf(f.Label); part < 0 {
				return nil, fmt.Errorf("figure %q is of no part of the bench (renamed since?); a full make bench measures the page anew", f.Label)
			}
		}
		byPart[part] = append(byPart[part], f)
	}
	return byPart, nil
}

// keepUnmeasured is the page of a run that measured the parts with rows
// in now (a page of one run), keeping from old the rows of every other
// part with the run that measured them. Runs no row cites any more leave
// the page; a page whose rows are all now's is now's page as it is.
func keepUnmeasured(old, now benchPage) (benchPage, error) {
	oldParts, err := rowsByPart(old)
	if err != nil {
		return benchPage{}, err
	}
	nowParts, err := rowsByPart(now)
	if err != nil {
		return benchPage{}, err
	}
	keep := make([]bool, len(benchParts))
	kept := map[int]bool{} // old runs a kept row or detail cites
	for i := range benchParts {
		if keep[i] = len(nowParts[i]) == 0; keep[i] {
			for _, f := range oldParts[i] {
				kept[f.Gen] = true
			}
		}
	}
	keepDetails := keep[partIndex(detailsPart)]
	if keepDetails {
		for _, d := range old.Details {
			kept[d.Gen] = true
		}
	}
	merged := benchPage{Gens: append([]generation(nil), now.Gens...)}
	renumber := map[int]int{}
	for i, g := range old.Gens {
		if !kept[i] {
			continue
		}
		for _, n := range now.Gens {
			if n.At == g.At {
				return benchPage{}, fmt.Errorf("this run and the kept run it updates were both measured at %s; wait a minute and run again", g.At)
			}
		}
		renumber[i] = len(merged.Gens)
		merged.Gens = append(merged.Gens, g)
	}
	for i := range benchParts {
		if !keep[i] {
			merged.Figures = append(merged.Figures, nowParts[i]...)
			continue
		}
		for _, f := range oldParts[i] {
			f.Gen = renumber[f.Gen]
			merged.Figures = append(merged.Figures, f)
		}
	}
	merged.Details = now.Details
	if keepDetails {
		merged.Details = nil
		for _, d := range old.Details {
			d.Gen = renumber[d.Gen]
			merged.Details = append(merged.Details, d)
		}
	}
	return merged, nil
}

// partIndex is the index of the part named name (it must be one).
func partIndex(name string) int {
	for i, part := range benchParts {
		if part.Name == name {
			return i
		}
	}
	panic("kregress-bench: no bench part " + name)
}
