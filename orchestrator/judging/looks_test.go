package judging

import (
	"errors"
	"slices"
	"testing"
)

// night stands for any judgement: what it left unsure at each look.
type night struct{ unsure []string }

func (n night) Unsure() []string { return n.unsure }

func TestTakeLooksStopsWhenSureOrOutOfLooks(t *testing.T) {
	for _, c := range []struct {
		name   string
		extra  int
		unsure [][]string // what look i leaves unsure
		looks  int        // looks taken
		more   []int      // the looks after which more was measured
	}{
		{"sure at once", 2, [][]string{nil}, 1, nil},
		{"sure at the second look", 2, [][]string{{"v/m"}, nil}, 2, []int{1}},
		{"unsure until the looks run out", 2, [][]string{{"v/m"}, {"v/m"}, {"v/m"}, {"v/m"}}, 3, []int{1, 2}},
		{"no extra rounds", 0, [][]string{{"v/m"}}, 1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			judged := 0
			var more []int
			j, looks, err := TakeLooks(Looks{Alpha: 0.05, Extra: c.extra, GreyUpper: 0.2},
				func() (night, error) { judged++; return night{c.unsure[judged-1]}, nil },
				func(look int, unsure []string) error {
					if !slices.Equal(unsure, c.unsure[look-1]) {
						t.Errorf("more after look %d got unsure %v, want %v", look, unsure, c.unsure[look-1])
					}
					more = append(more, look)
					return nil
				})
			if err != nil || looks != c.looks || judged != c.looks || !slices.Equal(more, c.more) {
				t.Fatalf("looks %d (judged %d, more after %v), err %v: want %d looks, more after %v", looks, judged, more, err, c.looks, c.more)
			}
			if !slices.Equal(j.unsure, c.unsure[looks-1]) {
				t.Errorf("returned the judgement of another look: %v", j.unsure)
			}
		})
	}
}

func TestTakeLooksStopsOnErrors(t *testing.T) {
	boom := errors.New("boom")
	if _, looks, err := TakeLooks(Looks{Alpha: 0.05, Extra: 3, GreyUpper: 0.2},
		func() (night, error) { return night{[]string{"v/m"}}, nil },
		func(int, []string) error { return boom }); !errors.Is(err, boom) || looks != 1 {
		t.Errorf("a failed measurement: looks %d, err %v: want 1 and its error", looks, err)
	}
	if _, looks, err := TakeLooks(Looks{Alpha: 0.05, Extra: 3, GreyUpper: 0.2},
		func() (night, error) { return night{}, boom },
		func(int, []string) error { t.Error("measured after a failed judgement"); return nil }); !errors.Is(err, boom) || looks != 1 {
		t.Errorf("a failed judgement: looks %d, err %v: want 1 and its error", looks, err)
	}
}
