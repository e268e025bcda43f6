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

// Defect: a night judges every variant's every metric, each series at
// alpha, so most nights in which nothing changed listed some shift. With
// Family set, the family of unchanged series lists any with probability
// at most Alpha; a clear shift is still found among them.
func TestFamilyBudget(t *testing.T) {
	const series, nights = 18, 20
	listed := func(family int, rng *rand.Rand) (nulls int) {
		for s := 0; s < series; s++ {
			if len(Detect(noise(rng, nights, 100, 5), Options{Family: family, Seed: uint64(s)})) > 0 {
				nulls++
			}
		}
		return nulls
	}
	// The same 18 unchanged series: at alpha each, some of them list a
	// shift; within the family's budget none does.
	if n := listed(1, rand.New(rand.NewPCG(5, 5))); n == 0 {
		t.Fatalf("each series at alpha: no unchanged series listed a shift; the test's seed no longer shows the defect")
	}
	if n := listed(series, rand.New(rand.NewPCG(5, 5))); n != 0 {
		t.Fatalf("a family of %d unchanged series: %d listed a shift", series, n)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	xs := append(noise(rng, 10, 100, 5), noise(rng, 10, 125, 5)...) // 5 sd at night 10
	pts := Detect(xs, Options{Family: series, Seed: 1})
	if len(pts) != 1 || pts[0].Index < 9 || pts[0].Index > 11 {
		t.Fatalf("a 5 sd shift among %d series: %+v", series, pts)
	}
}
