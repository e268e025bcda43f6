package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/verdict"
)

// editedCopy writes to dir/name the file src with each edit (old, new,
// old, new, ...) made: each old must occur once, so that a change of src
// fails the test instead of leaving the copy unedited.
func editedCopy(t *testing.T, src, dir, name string, edits ...string) string {
	t.Helper()
	if len(edits)%2 != 0 {
		t.Fatalf("editedCopy %s: an odd number of edit strings", src)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i < len(edits); i += 2 {
		s = replaceOnce(t, s, edits[i], edits[i+1])
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// hackbenchDelay is the docs' scheduler-path delay (udelay in schedule()
// whenever the caller is about to block), made five times longer: at the
// docs' 1 ms the change is about a fifth of hackbench's time on the host
// clock, too close to its spread for a test that must not flake.
func hackbenchDelay(t *testing.T, dir string) string {
	return editedCopy(t, "../../docs/examples/udelay-schedule.patch", dir, "udelay-schedule-5ms.patch",
		"udelay(1000);", "udelay(5000);",
		"every task that blocks is 1 ms late.", "every task that blocks is 5 ms late.")
}

// hackbenchExperiment is the built-in hackbench experiment made short
// and steady: fewer messages per run and fewer runs (the delay is paid
// per block, not per message), a shorter traced half, and the icount
// clock, under which hackbench's time counts the guest's instructions
// and the host's load does not move it. hackbench_time_s is named the
// primary metric, judged on its own: diluted by the two irqs-off
// metrics, 5+5 boots flag it only when at most one pair of boots is out
// of order; on its own, when at most two are.
func hackbenchExperiment(t *testing.T, dir string) string {
	return editedCopy(t, "../config/experiments/hackbench.yaml", dir, "hackbench.yaml",
		"experiment: hackbench\n", "experiment: e2e-hackbench\n",
		"vm:\n  cpus: 2\n", "vm:\n  cpus: 2\n  clock: icount\n  boot_timeout: 90s\n",
		`args: [-g, "2", -l, "100"]`, `args: [-g, "2", -l, "20"]`,
		"runs: 5\n", "runs: 3\n",
		"repetitions: 5\n", "repetitions: 5\nprimary_metrics: [hackbench_time_s]\n",
		"duration: 4s\n", "duration: 2s\n")
}

// TestHackbenchFlagsSchedulerDelay measures, for real, a patch that
// slows a scheduler path with the hackbench experiment, 5+5 boots, and
// asks for the CI verdict: exit 3 (a regression), and the stored run's
// comparison calls hackbench_time_s of the patched kernel a regression
// and names it in the verdict.
func TestHackbenchFlagsSchedulerDelay(t *testing.T) {
	// Made before the skip: -short checks that the docs' patch and the
	// built-in experiment still take the edits.
	dir, resultsDir := t.TempDir(), t.TempDir()
	patch, exp := hackbenchDelay(t, dir), hackbenchExperiment(t, dir)
	if testing.Short() {
		t.Skip("builds a kernel and boots 10 guests (run `make test`)")
	}
	bin := binDir(t)

	code, out := runKregress(t, bin, resultsDir, "run", "-c", exp, "--patch", patch, "--repetitions", "5", "--extra-rounds", "0", "--fail-on-regression")
	logAfter(t, "hackbench, base vs a 5 ms delay in schedule(), exit %d:\n%s", code, out)
	if code != int(verdict.ExitRegression) {
		t.Fatalf("exit %d, want %d (a regression):\n%s", code, verdict.ExitRegression, tail(out, 30))
	}

	var d struct {
		Comparisons map[string][]struct {
			Name       string         `json:"name"`
			Verdict    verdict.Change `json:"verdict"`
			P          float64        `json:"p"`
			Q          float64        `json:"q"`
			Base, Cand struct {
				N      int     `json:"n"`
				Median float64 `json:"median"`
			}
		} `json:"comparisons"`
		Failing  []string `json:"failing"`
		Verdict  string   `json:"verdict"`
		Headline string   `json:"headline"`
	}
	js := kregressRun(t, bin, resultsDir, "diff", "1", "-f", "json")
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatalf("diff 1 -f json: %v\n%s", err, js)
	}
	found := false
	for _, m := range d.Comparisons["patched"] {
		if m.Name != "hackbench_time_s" {
			continue
		}
		found = true
		t.Logf("hackbench_time_s: base %.3f s, patched %.3f s (n=%d+%d), p=%.4f, q=%.4f: %s",
			m.Base.Median, m.Cand.Median, m.Base.N, m.Cand.N, m.P, m.Q, m.Verdict)
		if m.Verdict != verdict.Regression || m.Base.N != 5 || m.Cand.N != 5 {
			t.Fatalf("stored run 1: hackbench_time_s of patched is %q at n=%d+%d, want a regression at 5+5", m.Verdict, m.Base.N, m.Cand.N)
		}
	}
	if !found {
		t.Fatalf("stored run 1 has no hackbench_time_s comparison of patched:\n%s", js)
	}
	if d.Verdict != "fail" || !strings.Contains(strings.Join(d.Failing, "\n"), "hackbench_time_s") || !strings.Contains(d.Headline, "hackbench_time_s") {
		t.Fatalf("stored run 1's verdict %q (%q) does not fail on hackbench_time_s: failing %q", d.Verdict, d.Headline, d.Failing)
	}
}
