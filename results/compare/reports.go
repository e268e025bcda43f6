package compare

import (
	"fmt"

	"github.com/kregress/kregress/results"
)

// ReportCount is one kernel report title in one variant: in how many of
// its cells it appeared, and its first excerpt.
type ReportCount struct {
	Kind    results.FindingKind `json:"kind"`
	Title   string              `json:"title"`
	Cells   int                 `json:"cells"`
	Excerpt string              `json:"excerpt,omitempty"`
}

// ReportChange is a candidate's kernel report against the baseline's.
// New means the baseline never printed it: that fails the comparison, as
// syzkaller's ci treats a new crash title; a report the baseline prints
// too is listed, not judged (the change did not introduce it).
type ReportChange struct {
	ReportCount
	Of            int  `json:"of"` // the candidate's judged cells
	BaselineCells int  `json:"baseline_cells"`
	BaselineOf    int  `json:"baseline_of"`
	New           bool `json:"new"`
	// Known: the baseline did not print it here, but a history of good
	// kernels did (KnowTitles): listed, judged as a rate, not as new.
	Known bool `json:"known,omitempty"`
}

func (c ReportChange) String() string {
	return fmt.Sprintf("%s (%d of %d cells; baseline %d of %d)", c.Title, c.Cells, c.Of, c.BaselineCells, c.BaselineOf)
}

// reportCounts counts each title once per cell, in order of appearance.
func reportCounts(rs []*results.Result) []ReportCount {
	var out []ReportCount
	index := map[string]int{}
	for _, r := range rs {
		for _, f := range r.Findings {
			j, ok := index[f.Title]
			if !ok {
				j = len(out)
				index[f.Title] = j
				out = append(out, ReportCount{Kind: f.Kind, Title: f.Title, Excerpt: f.Excerpt})
			}
			out[j].Cells++
		}
	}
	return out
}

func diffReports(base, cand *Variant) []ReportChange {
	inBase := map[string]int{}
	for _, r := range base.Reports {
		inBase[r.Title] = r.Cells
	}
	var out []ReportChange
	for _, r := range cand.Reports {
		n := inBase[r.Title]
		out = append(out, ReportChange{ReportCount: r, Of: cand.Judged(), BaselineCells: n, BaselineOf: base.Judged(), New: n == 0})
	}
	return out
}

// NewReports lists every candidate's kernel reports that its baseline
// never printed, as "candidate: new kernel report: TITLE (...)".
func (d *Diff) NewReports() []string {
	var out []string
	for _, v := range d.Variants[1:] {
		for _, c := range d.Reports[v.Name] {
			if c.New {
				out = append(out, fmt.Sprintf("%s: new kernel report: %s", v.Name, c))
			}
		}
	}
	return out
}
