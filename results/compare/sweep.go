package compare

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// SweepCounts are the vCPU counts results were scheduled at by a sweep
// (results.Provenance.SweepVCPUs), ascending; none for results without
// a sweep.
func SweepCounts(rs []*results.Result) []int {
	var counts []int
	for _, r := range rs {
		if n := r.Provenance.SweepVCPUs; n != 0 && !slices.Contains(counts, n) {
			counts = append(counts, n)
		}
	}
	slices.Sort(counts)
	return counts
}

// BySweep splits results by their sweep count, in SweepCounts' order
// (none when no result has a count). A result without a count among
// results with counts gets a block of its own at count 0, first, so that
// it is compared with nothing it was not measured alike with.
func BySweep(rs []*results.Result) (counts []int, blocks [][]*results.Result) {
	counts = SweepCounts(rs)
	if len(counts) == 0 {
		return nil, nil
	}
	for _, r := range rs {
		if r.Provenance.SweepVCPUs == 0 {
			counts = append([]int{0}, counts...)
			break
		}
	}
	blocks = make([][]*results.Result, len(counts))
	for _, r := range rs {
		i := slices.Index(counts, r.Provenance.SweepVCPUs)
		blocks[i] = append(blocks[i], r)
	}
	return counts, blocks
}

// checkOneCount refuses groups that mix a sweep's vCPU counts: within a
// group (its numbers would pool guests of different sizes) or between
// groups of different counts (a change between them is the count's, not
// the kernel's). Results without a sweep are not checked here: sets of
// unlike vCPUs are Mismatches', which --force may overrule; a sweep's
// counts no flag overrules.
func checkOneCount(groups []Group) error {
	first := 0
	for _, g := range groups {
		counts := BySweepCounts(g.Results)
		switch {
		case len(counts) == 0:
			continue
		case len(counts) > 1:
			return fmt.Errorf("compare: %s holds cells of a vCPU sweep at %s vCPUs: a sweep is compared count by count (kregress diff RUN), never pooled", g.Label, countList(counts))
		case first == 0:
			first = counts[0]
		case counts[0] != first:
			return fmt.Errorf("compare: %s was measured at %d vCPUs, the baseline at %d: a sweep's counts are never compared with each other", g.Label, counts[0], first)
		}
	}
	return nil
}

// BySweepCounts is BySweep's counts alone.
func BySweepCounts(rs []*results.Result) []int {
	counts, _ := BySweep(rs)
	return counts
}

// countList writes counts as "2, 8 and 16" (0: "unswept").
func countList(counts []int) string {
	var s []string
	for _, n := range counts {
		if n == 0 {
			s = append(s, "unswept")
		} else {
			s = append(s, strconv.Itoa(n))
		}
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// SweepPoint is one metric of one candidate at one vCPU count: the
// count's own comparison (medians with their intervals, change, q,
// verdict), never a figure pooled over counts.
type SweepPoint struct {
	VCPUs  int    `json:"vcpus"`
	Metric Metric `json:"metric"`
}

// Curve is one metric of one candidate against the sweep's vCPU counts,
// the baseline's medians beside the candidate's at each count.
type Curve struct {
	Baseline  string               `json:"baseline"`
	Candidate string               `json:"candidate"`
	Metric    string               `json:"metric"`
	Unit      string               `json:"unit"`
	Direction agentproto.Direction `json:"direction"`
	Points    []SweepPoint         `json:"points"`
}

// Curves are the sweep's curves: diffs[i] is the comparison at counts[i];
// one curve per candidate and metric, in the order the diffs first list
// them, with a point at each count the metric was compared at.
func Curves(counts []int, diffs []*Diff) []Curve {
	var out []Curve
	index := map[[2]string]int{}
	for i, d := range diffs {
		for _, v := range d.Variants[1:] {
			for _, m := range d.Metrics[v.Name] {
				key := [2]string{v.Name, m.Name}
				j, ok := index[key]
				if !ok {
					j = len(out)
					index[key] = j
					out = append(out, Curve{Baseline: d.Baseline, Candidate: v.Name, Metric: m.Name, Unit: m.Unit, Direction: m.Direction})
				}
				out[j].Points = append(out[j].Points, SweepPoint{VCPUs: counts[i], Metric: m})
			}
		}
	}
	return out
}

// CompareSweep compares each vCPU count's results apart (diffs[i] at
// counts[i], each as Compare would one run), then judges every count's
// metrics as one false-discovery family (Rejudge): a sweep of three
// counts tests three times the metrics, and its gate must say so.
func CompareSweep(rs []*results.Result, baseline string, opts Options) (counts []int, diffs []*Diff, err error) {
	counts, blocks := BySweep(rs)
	for i, b := range blocks {
		d, err := Compare(b, baseline, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("at %s vCPUs: %w", countList(counts[i:i+1]), err)
		}
		diffs = append(diffs, d)
	}
	if len(diffs) > 1 {
		Rejudge(diffs...)
	}
	return counts, diffs, nil
}
