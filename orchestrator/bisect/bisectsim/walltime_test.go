package bisectsim

import (
	"testing"
	"time"
)

// The wall-time replay by hand: builds 10 s, boots 1 s, range of 8.
func TestWall(t *testing.T) {
	m := TimeModel{Build: 10 * time.Second, Boot: time.Second}
	p := &Prober{Log: []Event{
		// Endpoints' look with the probe c4 (built first: 10 s), 15 boots;
		// c2 and c6 are built beside it (ending at 20 and 30 s of the 25 s
		// look: c6 still runs when it ends).
		{Step: "c4", Boots: 15, Plan: []string{"c2", "c6"}},
		// c2 is built: no wait; its look (25-29 s) ends before c6 does,
		// so c1 and c3 do not start.
		{Step: "c2", Boots: 4, Plan: []string{"c1", "c3"}},
		// c3 is needed, c6 still runs until 30 s: wait, then build c3
		// (30..40 s), boot 4 (44 s).
		{Step: "c3", Boots: 4},
	}}
	w := p.Wall(m, 8)
	// Serial: c4, c2, c3 built (30 s) + 23 boots.
	if w.Serial != 53*time.Second {
		t.Errorf("serial %s, want 53s", w.Serial)
	}
	if w.Speculative != 44*time.Second || w.Wasted != 1 {
		t.Errorf("speculative %s with %d wasted, want 44s and 1 (c6)", w.Speculative, w.Wasted)
	}
}
