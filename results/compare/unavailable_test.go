package compare

import (
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// A failure known.yaml diagnosed on 6.12 is known only in sets whose
// guests ran 6.12: on 6.1 the same failing test is unexplained.
func TestKnownPerKernel(t *testing.T) {
	known := map[string]KnownFailure{"test_kmem/test_kmem_basic": {Reason: "initramfs dentries", Kernels: []string{"6.12"}}}
	set := func(release string) SelftestSet {
		r := &results.Result{Status: results.StatusOK, Selftests: []agentproto.SelftestResult{{Binary: "test_kmem", Name: "test_kmem_basic", Outcome: agentproto.SelftestFail}}}
		r.Provenance.GuestKernel = release + " #1 SMP PREEMPT_DYNAMIC"
		s := selftestSet([]*results.Result{r})
		s.explain(known)
		return s
	}
	if s := set("6.12.118"); len(s.Known) != 1 || len(s.Unexplained) != 0 {
		t.Errorf("6.12: known %v unexplained %v", s.Known, s.Unexplained)
	}
	if s := set("6.1.192"); len(s.Known) != 0 || len(s.Unexplained) != 1 {
		t.Errorf("6.1: known %v unexplained %v", s.Known, s.Unexplained)
	}
	if (KnownFailure{Kernels: []string{"6.1"}}).AppliesTo("6.12.118", "host") {
		t.Error("6.1 matched 6.12.118")
	}
	if !ValidKernelSeries("6.12") || ValidKernelSeries("6.12.1") || ValidKernelSeries("6") {
		t.Error("ValidKernelSeries")
	}
}

func TestKnownFailureUnderOneClock(t *testing.T) {
	known := map[string]KnownFailure{"test_memcontrol/test_memcg_reclaim": {Reason: "r", Kernels: []string{"6.12"}, Clock: "icount"}}
	for _, tc := range []struct {
		clocks []string
		want   bool
	}{
		{[]string{"icount shift=3"}, true},
		{[]string{"host"}, false},
		{[]string{""}, false}, // stored before the clock was: the host's
		{[]string{"icount shift=3", "host"}, false},
	} {
		set := SelftestSet{Kernels: []string{"6.12.118"}, Clocks: tc.clocks}
		if _, got := set.knownHere(known, "test_memcontrol/test_memcg_reclaim"); got != tc.want {
			t.Errorf("clocks %q: known %v, want %v", tc.clocks, got, tc.want)
		}
	}
}
