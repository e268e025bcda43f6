package bisect

import "testing"

// The looks of a real series bisect (TestBisect's, on TCG) that ended
// with no culprit: bad holds the rstat lock 200 us longer, so its median
// hold (about 203 us) is about 100 times quieter on a log scale than
// good's (2 to 4 us). Patch 1/4 adds a comment. With one spread read from
// every pair of boots, the quiet endpoint's, every boot of good and of
// the step was set aside and the step gave no evidence in eleven looks.
func TestQuietEndpointKeepsTheNoisyBoots(t *testing.T) {
	prior := []Look{
		{Good: []float64{2.844, 1.913, 3.555, 1.853, 3.796}, Bad: []float64{203.07, 202.912, 203.483, 203.422, 203.562, 203.62, 201.88, 203.532, 202.721, 203.391}},
		{Good: []float64{4.086, 3.836}, Bad: []float64{203.422, 203.251}},
		{Step: []float64{203.361, 202.853}, Bad: []float64{202.28, 203.723}},
	}
	looks := []Look{
		{Step: []float64{2.814, 3.996}, Good: []float64{4.337, 3.506}},
		{Step: []float64{3.766, 3.936}, Bad: []float64{202.841, 203.907}},
		{Step: []float64{5.308, 1.983}, Good: []float64{3.445, 3.966}},
		{Step: []float64{3.325, 3.715}, Bad: []float64{202.455, 203.011}},
	}
	for n := 1; n <= len(looks); n++ {
		c := sprt(prior, looks[:n], 0.0082, outlierZ)
		if c.Outcome != Same || c.Position > 0.2 {
			t.Fatalf("after %d look(s): %s, want like good", n, c.String())
		}
	}
	c := sprt(prior, looks, 0.0082, outlierZ)
	if !c.mid || c.goodOverMid < settledLLR {
		t.Fatalf("after %d looks: %.2f more like good than like halfway, want >= %.2f (settled)", len(looks), c.goodOverMid, settledLLR)
	}
}
