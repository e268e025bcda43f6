package bisectsim

import (
	"fmt"
	"time"
)

// TimeModel prices a simulated bisect's work in wall time: every build of
// a commit takes Build, every boot (a cell: boot, workload, teardown)
// Boot, one cell at a time. With speculation, builds run beside the boots
// on cores the guests do not use, so a build finished during a look costs
// the search nothing; the model knows no contention (bisect.speculate's
// default speculates only where that holds).
type TimeModel struct {
	Build, Boot time.Duration
}

func (m TimeModel) String() string {
	return fmt.Sprintf("a build %s, a boot %s", m.Build, m.Boot)
}

// Wall is one bisect's wall time without and with speculation, and the
// speculative builds no step used.
type Wall struct {
	Serial, Speculative time.Duration
	Wasted              int
}

// Wall replays p's looks (Log) on model m for a range of n commits: the
// endpoints' kernels are not counted (a nightly that hands a bisect over
// has built them); a step's commit is built before its first
// look unless a speculative build has it (then the search waits only for
// what is left of it); a speculative build of another commit still
// running holds the kernel workspace and is waited for. Speculative
// builds start only during a look, one at a time, in the plan's order -
// the rules bisect's speculator follows. The looks are the same in both
// schedules: speculation does not change the search's decisions (the
// calibration bench checks it trial by trial).
func (p *Prober) Wall(m TimeModel, n int) Wall {
	var w Wall
	built := map[string]bool{"c0": true, fmt.Sprintf("c%d", n): true}
	for _, e := range p.Log {
		if e.Step != "" && !built[e.Step] {
			built[e.Step] = true
			w.Serial += m.Build
		}
		w.Serial += time.Duration(e.Boots) * m.Boot
	}

	var t time.Duration
	done := map[string]time.Duration{"c0": 0, fmt.Sprintf("c%d", n): 0} // commit -> when its build ended
	spec := map[string]bool{}                                           // built speculatively
	used := map[string]bool{}
	var inflight string
	var ends time.Duration // when inflight's build ends
	finish := func() {
		if inflight != "" {
			done[inflight] = ends
			inflight = ""
		}
	}
	for _, e := range p.Log {
		// The step's own build, before its look.
		if c := e.Step; c != "" {
			if _, ok := done[c]; !ok {
				if inflight == c {
					t = max(t, ends)
					finish()
				} else {
					if inflight != "" {
						t = max(t, ends)
						finish()
					}
					t += m.Build
					done[c] = t
				}
			}
			if spec[c] {
				used[c] = true
			}
		}
		// The look boots; planned builds run beside it.
		end := t + time.Duration(e.Boots)*m.Boot
		cur := t
		if inflight != "" {
			if ends > end {
				t = end
				continue
			}
			cur = ends
			finish()
		}
		for _, c := range e.Plan {
			if _, ok := done[c]; ok || cur >= end {
				continue
			}
			spec[c] = true
			if cur+m.Build > end {
				inflight, ends = c, cur+m.Build
				break
			}
			cur += m.Build
			done[c] = cur
		}
		t = end
	}
	if inflight != "" {
		// The bisect waits for a build still running when it ends.
		t = max(t, ends)
	}
	w.Speculative = t
	for c := range spec {
		if !used[c] {
			w.Wasted++
		}
	}
	return w
}
