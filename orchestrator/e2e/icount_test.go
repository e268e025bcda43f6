package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// icountWorkload is bisect's short rstat workload, long enough for the
// windowed throughput (an 8 s run has a 4 s untraced half: a warm-up
// window and three more).
var icountWorkload = strings.Replace(bisectWorkload, "duration: 2s", "duration: 8s", 1)

// TestICountClock boots a real guest with the default clock, which under
// TCG counts instructions (vm.TestICountArgs checks the QEMU arguments),
// and says so in the progress: the guest boots and runs
// the workload on single-threaded TCG, the cells record the clock,
// reads/s is the mean of the windows after the warm-up, and a run on the
// host clock is refused as not comparable.
func TestICountClock(t *testing.T) {
	if testing.Short() {
		t.Skip("boots 3 guests (run `make test`)")
	}
	bin := binDir(t)
	dir, resultsDir := t.TempDir(), t.TempDir()
	icount := filepath.Join(dir, "icount.yaml")
	os.WriteFile(icount, []byte(sameKernelTwice("e2e-icount", 1)+icountWorkload), 0o644)
	host := filepath.Join(dir, "host.yaml")
	os.WriteFile(host, []byte(strings.Replace(sameKernelTwice("e2e-icount", 1), "b: {}", "", 1)+strings.Replace(icountWorkload, "vm:\n", "vm:\n  clock: host\n", 1)), 0o644)
	out := kregressRun(t, bin, resultsDir, "run", "--extra-rounds", "0", "-c", icount)
	if !strings.Contains(out, "icount shift=3") || !strings.Contains(out, "vm.clock auto under TCG") {
		t.Fatalf("the progress does not name the clock the default chose under TCG:\n%s", out)
	}
	kregressRun(t, bin, resultsDir, "run", "--extra-rounds", "0", "-c", host)

	store := storetest.SQLiteIn(t, resultsDir)
	for id, want := range map[int64]string{1: "icount shift=3", 2: "host"} {
		rs := resultsOf(t, store, id)
		if len(rs) == 0 {
			t.Fatalf("run %d stored no cells", id)
		}
		for _, r := range rs {
			if r.Status != results.StatusOK || r.Provenance.Clock != want {
				t.Fatalf("run %d cell %d: status %s, clock %q (want %q): %s", id, r.Seq, r.Status, r.Provenance.Clock, want, r.Error)
			}
			var doc agentproto.Document
			if err := json.Unmarshal(r.Document, &doc); err != nil {
				t.Fatal(err)
			}
			if ws := doc.WindowRates["reads_per_sec"]; len(ws) < 3 || !strings.HasPrefix(doc.Params["reads_per_sec"], "mean of") {
				t.Fatalf("run %d cell %d: windows %v, reads_per_sec taken as %q", id, r.Seq, ws, doc.Params["reads_per_sec"])
			}
		}
	}
	code, out := runKregress(t, bin, resultsDir, "diff", "1/a", "2/a")
	if code != 2 || !strings.Contains(out, "guest clock: icount shift=3 vs host") {
		t.Fatalf("icount vs host clock: exit %d, want 2 naming the clock:\n%s", code, out)
	}
}
