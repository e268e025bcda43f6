package compare

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// SelftestSet is one set's kernel selftest outcomes, over the cells that
// ran them (config selftests.repetitions).
type SelftestSet struct {
	Runs int `json:"runs"`
	// Outcomes maps binary/test to its outcome; when the set's cells
	// disagree (a flaky test), every outcome seen, sorted: "fail/pass".
	Outcomes map[string]string `json:"outcomes,omitempty"`
	// Known: failing tests with a diagnosed reason (Options.KnownFailures);
	// Unexplained: failing tests without one; Stale: known failures that
	// did not fail here (their expectation is out of date).
	Known       []string `json:"known,omitempty"`
	Unexplained []string `json:"unexplained,omitempty"`
	Stale       []string `json:"stale,omitempty"`
	// Flaky: tests that failed and then passed when their binary ran
	// again in the same boot (agentproto.SelftestFlaky), in any cell.
	Flaky []string `json:"flaky,omitempty"`
	// Boots: per test, in how many boots it ran and failed, and how many
	// of the failing boots ran on a loaded host.
	Boots map[string]SelftestBoots `json:"boots,omitempty"`
	// Kernels: the guest kernel releases the tests ran on (uname -r), for
	// the known failures diagnosed per kernel series.
	Kernels []string `json:"kernels,omitempty"`
	// Clocks: the guest clocks the tests ran under (provenance clocks),
	// for the known failures diagnosed under one clock.
	Clocks []string `json:"-"`
}

// knownHere is known's entry for test k when it applies to every kernel
// the set ran on.
func (s *SelftestSet) knownHere(known map[string]KnownFailure, k string) (KnownFailure, bool) {
	kf, ok := known[k]
	if !ok {
		return kf, false
	}
	kernels, clocks := s.Kernels, s.Clocks
	if len(kernels) == 0 {
		kernels = []string{""}
	}
	if len(clocks) == 0 {
		clocks = []string{""}
	}
	for _, rel := range kernels {
		for _, clock := range clocks {
			if !kf.AppliesTo(rel, clock) {
				return kf, false
			}
		}
	}
	return kf, true
}

// SelftestBoots counts one test's boots: a new failure is flagged only
// when it failed in more than one boot (confirmed), and is suspect when
// every boot it failed in ran on a loaded host.
type SelftestBoots struct {
	Ran          int `json:"ran"`
	Failed       int `json:"failed"`
	FailedLoaded int `json:"failed_loaded,omitempty"`
	// Load: how the host was loaded in the first loaded failing boot.
	Load string `json:"load,omitempty"`
}

// Suspect is "host loaded (load 3.1 on 2 cores, ...)" when every boot the
// test failed in ran on a loaded host, "" otherwise.
func (b SelftestBoots) Suspect() string {
	if b.Failed == 0 || b.FailedLoaded < b.Failed {
		return ""
	}
	return "host loaded (" + b.Load + ")"
}

// explain sorts the set's failures into known and unexplained ones.
func (s *SelftestSet) explain(known map[string]KnownFailure) {
	s.Known, s.Unexplained, s.Stale, s.Flaky = nil, nil, nil, nil
	for k, o := range s.Outcomes {
		if saw(o, agentproto.SelftestFlaky) {
			s.Flaky = append(s.Flaky, k)
		}
		kf, isKnown := s.knownHere(known, k)
		switch {
		case failing(o) && isKnown:
			s.Known = append(s.Known, k)
		case failing(o):
			s.Unexplained = append(s.Unexplained, k)
		case isKnown && !kf.Flaky && o != agentproto.SelftestSkip:
			s.Stale = append(s.Stale, k)
		}
	}
	sort.Strings(s.Known)
	sort.Strings(s.Unexplained)
	sort.Strings(s.Stale)
	sort.Strings(s.Flaky)
}

// SelftestChange is one test whose outcome differs from the baseline's.
type SelftestChange struct {
	Test string `json:"test"`
	Base string `json:"base"` // "-": the baseline has no such test
	Cand string `json:"cand"`
	// Kind: new_failure (the candidate fails where the baseline never
	// did, in at least two boots, or produced no result: the gate flags
	// these), unconfirmed_failure (a new failure seen in one boot only:
	// shown, not flagged, until another boot confirms it), fixed (the
	// baseline failed, the candidate never does), changed (anything
	// else, e.g. skip -> pass).
	Kind string `json:"kind"`
	// FailedBoots of Boots: the candidate's boots that failed the test,
	// of those that ran it.
	FailedBoots int `json:"failed_boots,omitempty"`
	Boots       int `json:"boots,omitempty"`
	// Suspect: "host loaded (...)" when every boot the test failed in ran
	// on a loaded host, the likelier cause then.
	Suspect string `json:"suspect,omitempty"`
	// BaseSuspect: the baseline failed the test too, but only in boots
	// on a loaded host ("host loaded (...)"), so that failure did not
	// excuse the candidate's confirmed one.
	BaseSuspect string `json:"base_suspect,omitempty"`
}

// FlakyOnRerun: the candidate's test failed, then passed when its
// binary ran again in the same boot (flaky, never flagged).
func (c SelftestChange) FlakyOnRerun() bool { return saw(c.Cand, agentproto.SelftestFlaky) }

// Kinds of selftest change.
const (
	NewFailure = "new_failure"
	Fixed      = "fixed"
	Changed    = "changed"
	// Flaky: a change of a test known to be flaky on this guest.
	Flaky = "flaky"
	// Unconfirmed: a new failure in one boot only (see SelftestChange).
	Unconfirmed = "unconfirmed_failure"
)

// confirmBoots is how many of the candidate's boots must fail a test
// before its new failure is flagged: one failing boot may be the host
// (load, steal, another guest), two are the kernel's.
const confirmBoots = 2

// SelftestFailed says whether one outcome is a failure (fail, error,
// timeout, an unexpected pass, no result).
func SelftestFailed(outcome string) bool { return failing(outcome) }

// saw: outcome is among the outcomes seen ("flaky/pass").
func saw(outcomes, outcome string) bool {
	return slices.Contains(strings.Split(outcomes, "/"), outcome)
}

// failing: any of the outcomes seen ("fail/pass") is a failure.
func failing(outcomes string) bool {
	for _, o := range strings.Split(outcomes, "/") {
		switch o {
		case agentproto.SelftestFail, agentproto.SelftestError, agentproto.SelftestTimeout, agentproto.SelftestXPass, "no result":
			return true
		}
	}
	return false
}

func changeKind(base, cand string) string {
	switch {
	case failing(cand) && !failing(base):
		return NewFailure
	case cand == "-" && base != "-" && !failing(base):
		return NewFailure // a test the candidate did not run at all
	case failing(base) && !failing(cand) && cand != "-":
		return Fixed
	}
	return Changed
}

func selftestSet(rs []*results.Result) SelftestSet {
	seen := map[string]map[string]bool{}
	set := SelftestSet{Boots: map[string]SelftestBoots{}}
	for _, r := range rs {
		if len(r.Selftests) == 0 {
			continue
		}
		set.Runs++
		if rel := Release(r.Provenance.GuestKernel); !slices.Contains(set.Kernels, rel) {
			set.Kernels = append(set.Kernels, rel)
		}
		if !slices.Contains(set.Clocks, r.Provenance.Clock) {
			set.Clocks = append(set.Clocks, r.Provenance.Clock)
		}
		loaded, why := r.Provenance.HostLoad.Loaded()
		failedHere := map[string]bool{}
		for _, t := range r.Selftests {
			if seen[t.Key()] == nil {
				seen[t.Key()] = map[string]bool{}
			}
			seen[t.Key()][t.Outcome] = true
			if _, ran := failedHere[t.Key()]; !ran {
				failedHere[t.Key()] = false
			}
			if failing(t.Outcome) {
				failedHere[t.Key()] = true
			}
		}
		// Each test once per boot, however often its binary ran there.
		for k, failed := range failedHere {
			b := set.Boots[k]
			b.Ran++
			if failed {
				b.Failed++
				if loaded {
					b.FailedLoaded++
					if b.Load == "" {
						b.Load = why
					}
				}
			}
			set.Boots[k] = b
		}
	}
	if set.Runs == 0 {
		set.Boots = nil
		return set
	}
	set.Outcomes = map[string]string{}
	for k, outs := range seen {
		var o []string
		for x := range outs {
			o = append(o, x)
		}
		sort.Strings(o)
		set.Outcomes[k] = strings.Join(o, "/")
	}
	return set
}

// Release is the kernel release of a guest kernel description
// (Provenance.GuestKernel: "6.1.192 #1 SMP ..."): its first word.
func Release(guestKernel string) string {
	f := strings.Fields(guestKernel)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// Counts renders "40 pass, 6 skip, 1 fail" in a fixed outcome order.
func (s SelftestSet) Counts() string {
	n := map[string]int{}
	for _, o := range s.Outcomes {
		n[o]++
	}
	order := []string{agentproto.SelftestPass, agentproto.SelftestFail, agentproto.SelftestFlaky, agentproto.SelftestSkip, agentproto.SelftestXFail, agentproto.SelftestXPass, agentproto.SelftestError, agentproto.SelftestTimeout}
	var parts []string
	for _, o := range order {
		if n[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[o], o))
			delete(n, o)
		}
	}
	var rest []string
	for o := range n {
		rest = append(rest, o)
	}
	sort.Strings(rest)
	for _, o := range rest {
		parts = append(parts, fmt.Sprintf("%d %s", n[o], o))
	}
	return strings.Join(parts, ", ")
}

// diffSelftests lists the tests whose outcomes differ. A candidate that ran
// no selftest while the baseline did (it crashed in them, or they were
// off) is one change on "(all)": a gate that did not run is not a pass.
func diffSelftests(base, cand SelftestSet, known map[string]KnownFailure) []SelftestChange {
	if base.Runs == 0 && cand.Runs == 0 {
		return nil
	}
	if cand.Runs == 0 || base.Runs == 0 {
		b, c := "ran", "ran"
		if base.Runs == 0 {
			b = "no result"
		}
		if cand.Runs == 0 {
			c = "no result"
		}
		return []SelftestChange{{Test: "(all)", Base: b, Cand: c, Kind: changeKind(b, c)}}
	}
	keys := map[string]bool{}
	for k := range base.Outcomes {
		keys[k] = true
	}
	for k := range cand.Outcomes {
		keys[k] = true
	}
	var out []SelftestChange
	for k := range keys {
		b, c := base.Outcomes[k], cand.Outcomes[k]
		if b == c {
			continue
		}
		if b == "" {
			b = "-"
		}
		if c == "" {
			c = "-"
		}
		kind := changeKind(b, c)
		if kf, ok := cand.knownHere(known, k); ok && kf.Flaky && b != "-" && c != "-" {
			kind = Flaky
		}
		ch := SelftestChange{Test: k, Base: b, Cand: c, Kind: kind}
		if cb, ran := cand.Boots[k]; ran && c != "-" {
			ch.FailedBoots, ch.Boots = cb.Failed, cb.Ran
			if failing(c) {
				ch.Suspect = cb.Suspect()
			}
			// Failing in one boot is not yet failing: that boot's host
			// may have been the cause. Another boot confirms it.
			if kind == NewFailure && cb.Failed < confirmBoots {
				ch.Kind = Unconfirmed
			}
			// The baseline failed it only on a loaded host, the
			// candidate in two boots not all loaded: the baseline's
			// failure does not excuse the candidate's.
			if bs := base.Boots[k].Suspect(); kind == Changed && failing(b) && failing(c) && bs != "" && cb.Failed >= confirmBoots && ch.Suspect == "" {
				ch.Kind, ch.BaseSuspect = NewFailure, bs
			}
		}
		out = append(out, ch)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Test < out[j].Test })
	return out
}

// SelftestFlags lists, per candidate, its new selftest failures: the
// correctness gate. Fixes and other changes are shown, never flagged.
func (d *Diff) SelftestFlags() []string {
	return d.selftestLines(NewFailure, func(c SelftestChange) string { return c.Test },
		func(v string, tests []string) string {
			return fmt.Sprintf("%s: %d new selftest failure(s) against %s: %s", v, len(tests), d.Baseline, strings.Join(tests, ", "))
		})
}

// SelftestUnconfirmed lists, per candidate, its new selftest failures
// seen in one boot only: shown, not flagged, with the host's load when it
// is the likelier cause.
func (d *Diff) SelftestUnconfirmed() []string {
	return d.selftestLines(Unconfirmed, func(c SelftestChange) string {
		t := fmt.Sprintf("%s (failed in %d of %d boot(s)", c.Test, c.FailedBoots, c.Boots)
		if c.Suspect != "" {
			t += "; suspect: " + c.Suspect
		}
		return t + ")"
	}, func(v string, tests []string) string {
		return fmt.Sprintf("%s: %d new selftest failure(s) not yet confirmed in another boot: %s", v, len(tests), strings.Join(tests, ", "))
	})
}

// selftestLines is one line per candidate with selftest changes of kind:
// each change worded by test, the candidate's line by line.
func (d *Diff) selftestLines(kind string, test func(SelftestChange) string, line func(variant string, tests []string) string) []string {
	var out []string
	for _, v := range d.Variants[1:] {
		var tests []string
		for _, c := range d.SelftestChanges[v.Name] {
			if c.Kind == kind {
				tests = append(tests, test(c))
			}
		}
		if len(tests) > 0 {
			out = append(out, line(v.Name, tests))
		}
	}
	return out
}

// SelftestFixes lists, per candidate, the tests it passes where the
// baseline failed.
func (d *Diff) SelftestFixes() []string {
	var out []string
	for _, v := range d.Variants[1:] {
		for _, c := range d.SelftestChanges[v.Name] {
			if c.Kind == Fixed {
				out = append(out, fmt.Sprintf("%s: %s %s -> %s", v.Name, c.Test, c.Base, c.Cand))
			}
		}
	}
	return out
}
