package bisect

import (
	"fmt"
	"testing"
)

// On a uniform posterior over 16 positions, a look at c8 leads to c4 (c8
// bad) or c12 (c8 good), and two levels on to the quarter points: the
// search's own choice under each outcome. A commit whose side is known
// leads nowhere new.
func TestSpeculationTargets(t *testing.T) {
	c := positions(16, nil, nil, nil)
	for _, tc := range []struct {
		levels int
		want   string
	}{{0, "[]"}, {1, "[4 12]"}, {2, "[4 12 2 6 10 14]"}} {
		if got := fmt.Sprint(speculationTargets(c, nil, 16, 8, tc.levels)); got != tc.want {
			t.Errorf("levels %d: %s, want %s", tc.levels, got, tc.want)
		}
	}
	// Evidence that c8 is bad (its likelihood ratio strongly "like
	// bad"): the bad branch comes first, and c4 is its next look.
	skewed := positions(16, map[int]float64{8: 3}, nil, nil)
	if got := fmt.Sprint(speculationTargets(skewed, nil, 16, 8, 1)); got != "[4 12]" {
		t.Errorf("c8 likely bad: %s, want [4 12]", got)
	}
	skewed = positions(16, map[int]float64{8: -3}, nil, nil)
	if got := fmt.Sprint(speculationTargets(skewed, nil, 16, 8, 1)); got != "[12 4]" {
		t.Errorf("c8 likely good: %s, want [12 4]", got)
	}
	// c9..c15 dead (skipped): under "c8 good" nothing is left to look at.
	dead := map[int]bool{9: true, 10: true, 11: true, 12: true, 13: true, 14: true, 15: true}
	if got := fmt.Sprint(speculationTargets(positions(16, nil, dead, nil), dead, 16, 8, 1)); got != "[4]" {
		t.Errorf("c9..c15 skipped: %s, want [4]", got)
	}
}
