package changepoint

import (
	"math/rand/v2"
	"testing"
)

func noise(rng *rand.Rand, n int, mean, sd float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = mean + sd*rng.NormFloat64()
	}
	return xs
}

// Planted shifts are found at (or next to) the night they happened.
func TestFindsPlantedShifts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var xs []float64
	xs = append(xs, noise(rng, 20, 100, 5)...)
	xs = append(xs, noise(rng, 15, 120, 5)...) // +20% at night 20
	xs = append(xs, noise(rng, 20, 90, 5)...)  // -25% at night 35
	pts := Detect(xs, Options{Seed: 1})
	if len(pts) != 2 {
		t.Fatalf("want 2 change points, got %+v", pts)
	}
	for i, want := range []int{20, 35} {
		if d := pts[i].Index - want; d < -1 || d > 1 {
			t.Errorf("point %d at %d, want %d±1", i, pts[i].Index, want)
		}
	}
	if c := pts[0].Change(); c < 12 || c > 28 {
		t.Errorf("first shift %+.1f%%, planted +20%%", c)
	}
}

// A slow drift no single night shows: 1% per night for 30 nights after
// 20 flat ones, noise 5%.
func TestFindsDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	xs := noise(rng, 20, 100, 5)
	for i := 0; i < 30; i++ {
		xs = append(xs, 100+float64(i)+5*rng.NormFloat64())
	}
	if pts := Detect(xs, Options{Seed: 1}); len(pts) == 0 || pts[0].Index < 15 || pts[0].Index > 35 {
		t.Fatalf("drift starting at night 20: %+v", pts)
	}
}

// On pure noise, how many series report any change point? At most about
// alpha (here measured over 200 series, 40 nights each).
func TestNoiseFalsePositiveRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	const series = 200
	flagged := 0
	for i := 0; i < series; i++ {
		if len(Detect(noise(rng, 40, 100, 5), Options{Seed: uint64(i), Permutations: 99})) > 0 {
			flagged++
		}
	}
	rate := float64(flagged) / series
	t.Logf("pure noise: %d of %d series (%.1f%%) report a change point at alpha 0.05", flagged, series, rate*100)
	// Binary segmentation tests more than once per series; the first
	// test is at alpha, later ones only run after a first rejection.
	if rate > 0.10 {
		t.Fatalf("false-positive rate %.2f", rate)
	}
}

func TestShortSeries(t *testing.T) {
	if pts := Detect([]float64{1, 2, 3, 100, 101}, Options{}); len(pts) != 0 {
		t.Fatalf("5 points split with min size 3: %+v", pts)
	}
	if pts := Detect(nil, Options{}); len(pts) != 0 {
		t.Fatal(pts)
	}
}
