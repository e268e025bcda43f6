package sensitivity

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/testfile"
)

const (
	docPath    = "../../docs/sensitivity.md"
	beginTable = "<!-- table: generated from results/sensitivity/measured.csv by `KREGRESS_UPDATE_GOLDEN=1 go test ./results/sensitivity`; edit the CSV -->\n\n"
	endTable   = "\n<!-- end of table -->\n"
)

func TestTableParses(t *testing.T) {
	rows := Table()
	if len(rows) == 0 {
		t.Fatal("measured.csv has no rows")
	}
	got := Lookup(rows, Setup{Experiment: "rstat-relock", Accel: TCG, Clock: HostClock, CPUs: 2, Duration: 10 * time.Second})
	if len(got) == 0 {
		t.Fatal("the default experiment's TCG host-clock setup has no rows")
	}
	if got := Lookup(rows, Setup{Experiment: "rstat-relock", Accel: KVM, Clock: HostClock, CPUs: 2, Duration: 10 * time.Second}); len(got) != 0 {
		t.Fatalf("a KVM row for the default experiment: %+v (was it measured? then update this test)", got)
	}
	if got := Lookup(rows, Setup{Experiment: "rstat-relock", Accel: TCG, Clock: HostClock, CPUs: 4, Duration: 10 * time.Second}); len(got) != 0 {
		t.Fatalf("4 vCPUs matched the 2-vCPU rows: %+v", got)
	}
}

func TestParseRejectsBadRows(t *testing.T) {
	header := "experiment,accel,clock,vcpus,duration,metric,cv,boots,date,source\n"
	for name, text := range map[string]string{
		"no header":  "rstat-relock,tcg,host,2,10s,m,0.1,8,2026-12-03,A\n",
		"accel":      header + "rstat-relock,qemu,host,2,10s,m,0.1,8,2026-12-03,A\n",
		"clock":      header + "rstat-relock,tcg,wall,2,10s,m,0.1,8,2026-12-03,A\n",
		"vcpus":      header + "rstat-relock,tcg,host,0,10s,m,0.1,8,2026-12-03,A\n",
		"duration":   header + "rstat-relock,tcg,host,2,10,m,0.1,8,2026-12-03,A\n",
		"cv":         header + "rstat-relock,tcg,host,2,10s,m,-0.1,8,2026-12-03,A\n",
		"cv NaN":     header + "rstat-relock,tcg,host,2,10s,m,NaN,8,2026-12-03,A\n",
		"boots":      header + "rstat-relock,tcg,host,2,10s,m,0.1,2,2026-12-03,A\n",
		"date":       header + "rstat-relock,tcg,host,2,10s,m,0.1,8,3 Dec,A\n",
		"no metric":  header + "rstat-relock,tcg,host,2,10s,,0.1,8,2026-12-03,A\n",
		"few fields": header + "rstat-relock,tcg,host\n",
	} {
		if _, err := parse(text); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestPercent(t *testing.T) {
	for mde, want := range map[float64]string{0.46: "0.5%", 7.04: "7.0%", 54.6: "55%", 118.2: "118%"} {
		if got := Percent(mde); got != want {
			t.Errorf("Percent(%v) = %s, want %s", mde, got, want)
		}
	}
}

// docs/sensitivity.md's table is Markdown(Table()): the page and
// `kregress experiments` cannot disagree. With testfile.UpdateEnv set the
// test rewrites the page's table instead.
func TestDocsTableIsGenerated(t *testing.T) {
	page, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	begin, end := strings.Index(text, beginTable), strings.Index(text, endTable)
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the table's markers:\n%s%s", docPath, beginTable, endTable)
	}
	want := Markdown(Table())
	got := text[begin+len(beginTable) : end]
	if got == want {
		return
	}
	if testfile.Updating() {
		text = text[:begin+len(beginTable)] + want + text[end:]
		if err := os.WriteFile(docPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table is not measured.csv's; run KREGRESS_UPDATE_GOLDEN=1 go test ./results/sensitivity\ngot:\n%s\nwant:\n%s", docPath, got, want)
}

// Every row's source letter is explained on the page.
func TestDocsExplainEverySource(t *testing.T) {
	page, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Table() {
		if !strings.Contains(string(page), "- **"+r.Source+"**:") {
			t.Errorf("%s: source %s of %s/%s has no note", docPath, r.Source, r.Experiment, r.Metric)
		}
	}
}
