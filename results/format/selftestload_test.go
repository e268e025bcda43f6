package format_test

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
)

// Defect: a selftest failing in one boot while a kernel build ran beside
// the guest (seen in a nightly: test_cgfreezer_migrate) was flagged as a
// new failure. It is shown as unconfirmed, with the load as the suspect,
// and flagged only when another boot fails it too.
func TestSelftestFailureOnALoadedHostIsSuspect(t *testing.T) {
	rs := []*results.Result{
		comparetest.BootWith("stock", agentproto.SelftestPass, comparetest.Quiet), comparetest.BootWith("stock", agentproto.SelftestPass, comparetest.Quiet),
		comparetest.BootWith("cand", agentproto.SelftestFail, comparetest.Busy), comparetest.BootWith("cand", agentproto.SelftestPass, comparetest.Quiet),
	}
	d, err := compare.Compare(rs, "stock", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if flags := d.SelftestFlags(); len(flags) != 0 || len(d.Failing()) != 0 {
		t.Fatalf("a failure in one loaded boot flagged: %q", d.Failing())
	}
	ch := d.SelftestChanges["cand"]
	if len(ch) != 1 || ch[0].Kind != compare.Unconfirmed || ch[0].FailedBoots != 1 || ch[0].Boots != 2 || ch[0].Suspect != "host loaded (load 5.2 on 2 cores, 1 other qemu-system)" {
		t.Fatalf("changes %+v", ch)
	}
	var b strings.Builder
	format.WriteDiff(&b, d, format.Table)
	for _, want := range []string{
		"test_freezer/test_cgfreezer_migrate: pass -> fail/pass (new failure, UNCONFIRMED: failed in 1 of 2 boot(s); another boot would confirm it; not flagged; suspect: host loaded (load 5.2 on 2 cores, 1 other qemu-system))",
		"not flagged, selftest failures seen in one boot only: cand: 1 new selftest failure(s) not yet confirmed in another boot: test_freezer/test_cgfreezer_migrate (failed in 1 of 2 boot(s); suspect: host loaded",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "FLAGGED by the selftest gate") {
		t.Errorf("flagged:\n%s", b.String())
	}

	// Confirmed in a second boot, it is flagged, loaded host or not; the
	// suspect is said only when every failing boot was loaded.
	rs[3] = comparetest.BootWith("cand", agentproto.SelftestFail, comparetest.Quiet)
	d, _ = compare.Compare(rs, "stock", compare.Options{})
	if flags := d.SelftestFlags(); len(flags) != 1 || !strings.Contains(flags[0], "test_freezer/test_cgfreezer_migrate") {
		t.Fatalf("confirmed failure: flags %q", flags)
	}
	if ch := d.SelftestChanges["cand"]; ch[0].Kind != compare.NewFailure || ch[0].Suspect != "" || ch[0].FailedBoots != 2 {
		t.Fatalf("confirmed: %+v", ch)
	}
	rs[3] = comparetest.BootWith("cand", agentproto.SelftestFail, comparetest.Busy)
	d, _ = compare.Compare(rs, "stock", compare.Options{})
	if ch := d.SelftestChanges["cand"]; ch[0].Kind != compare.NewFailure || !strings.HasPrefix(ch[0].Suspect, "host loaded") || len(d.SelftestFlags()) != 1 {
		t.Fatalf("confirmed on a loaded host: %+v", ch)
	}

	// One boot on a quiet host (or one whose load was never recorded):
	// unconfirmed, and no suspect is invented.
	for _, load := range []*results.HostLoad{comparetest.Quiet, nil} {
		one := []*results.Result{comparetest.BootWith("stock", agentproto.SelftestPass, nil), comparetest.BootWith("cand", agentproto.SelftestFail, load)}
		d, _ = compare.Compare(one, "stock", compare.Options{})
		if ch := d.SelftestChanges["cand"]; len(ch) != 1 || ch[0].Kind != compare.Unconfirmed || ch[0].Suspect != "" {
			t.Fatalf("one quiet boot (%+v): %+v", load, ch)
		}
	}
}

// The baseline's own unexplained failure seen only on a loaded host (as
// test_cpucg_stats was in `make run` on a busy machine) is marked suspect.
func TestBaselineFailureOnALoadedHostIsSuspect(t *testing.T) {
	base := comparetest.BootWith("stock", agentproto.SelftestPass, comparetest.Busy)
	base.Selftests[1].Outcome = agentproto.SelftestFail
	rs := []*results.Result{base, comparetest.BootWith("stock", agentproto.SelftestPass, comparetest.Quiet), comparetest.BootWith("cand", agentproto.SelftestPass, comparetest.Quiet), comparetest.BootWith("cand", agentproto.SelftestPass, comparetest.Quiet)}
	d, err := compare.Compare(rs, "stock", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	format.WriteDiff(&b, d, format.Table)
	if !strings.Contains(b.String(), "suspect, failed only in boots on a loaded host: test_cpu/test_cpucg_stats: host loaded (load 5.2 on 2 cores, 1 other qemu-system)") {
		t.Fatalf("table:\n%s", b.String())
	}
}

// A baseline failure seen only on a loaded host does not excuse the
// candidate's failure of the same test confirmed in two boots on a quiet
// one: flagged, saying why (before, "fail/pass" on the baseline made any
// candidate failure a mere change).
func TestBaselineLoadedFailureDoesNotExcuse(t *testing.T) {
	rs := []*results.Result{
		comparetest.BootWith("stock", agentproto.SelftestFail, comparetest.Busy), comparetest.BootWith("stock", agentproto.SelftestPass, comparetest.Quiet),
		comparetest.BootWith("cand", agentproto.SelftestFail, comparetest.Quiet), comparetest.BootWith("cand", agentproto.SelftestFail, comparetest.Quiet),
	}
	d, err := compare.Compare(rs, "stock", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch := d.SelftestChanges["cand"]
	if len(ch) != 1 || ch[0].Kind != compare.NewFailure || !strings.HasPrefix(ch[0].BaseSuspect, "host loaded (load 5.2") || len(d.SelftestFlags()) != 1 {
		t.Fatalf("changes %+v, flags %q", ch, d.SelftestFlags())
	}
	var b strings.Builder
	format.WriteDiff(&b, d, format.Table)
	if !strings.Contains(b.String(), "NEW FAILURE in 2 of 2 boots; the baseline failed it only on a loaded host: host loaded (load 5.2 on 2 cores, 1 other qemu-system)") {
		t.Fatalf("table:\n%s", b.String())
	}
	// The baseline failing on a quiet host too: a change, not flagged.
	rs[1] = comparetest.BootWith("stock", agentproto.SelftestFail, comparetest.Quiet)
	d, _ = compare.Compare(rs, "stock", compare.Options{})
	if len(d.SelftestFlags()) != 0 {
		t.Fatalf("a test the baseline fails on a quiet host flagged: %q", d.SelftestFlags())
	}
}
