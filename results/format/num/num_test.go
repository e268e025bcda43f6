package num

import (
	"math"
	"testing"

	"github.com/kregress/kregress/results"
)

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{2.5e6: "2.5M", 12345.6: "12346", 123.4: "123", 12.34: "12.3", 0.1234: "0.123", -45.67: "-45.7", 0: "0"} {
		if got := Number(v); got != want {
			t.Errorf("Number(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestDelta(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{1.25, "+1.2%"}, {-10, "-10.0%"}, {math.NaN(), "~"}, {math.Inf(1), "from 0 to >0"}, {math.Inf(-1), "from 0 to <0"}} {
		if got := Delta(c.v); got != c.want {
			t.Errorf("Delta(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestDeltaQuiet(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{1.25, "+1.2%"}, {-10, "-10.0%"}, {math.NaN(), "~"}, {math.Inf(1), "~"}, {math.Inf(-1), "~"}} {
		if got := DeltaQuiet(c.v); got != c.want {
			t.Errorf("DeltaQuiet(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestStatuses(t *testing.T) {
	got := Statuses(map[results.Status]int{results.StatusOK: 5, results.StatusCrashed: 1})
	if got != "1 crashed, 5 ok" {
		t.Errorf("Statuses = %q", got)
	}
}
