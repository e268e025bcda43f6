package diffset

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/export"
	"github.com/kregress/kregress/results/store/storetest"
)

// store holds run 1 (stock, fast: complete) and run 2 (stock only:
// still running).
func testStore(t *testing.T) results.Store {
	t.Helper()
	s := storetest.SQLite(t)
	ctx := context.Background()
	for i, variants := range [][]string{{"stock", "fast"}, {"stock"}} {
		r := &results.Run{Experiment: "e", Family: "f", Baseline: "stock", Variants: variants, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for j, v := range variants {
			if err := s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: v, Repetition: 1, Seq: j + 1, Status: results.StatusOK}); err != nil {
				t.Fatal(err)
			}
		}
		if i == 0 {
			s.FinishRun(ctx, r.ID, results.RunComplete, "")
		}
	}
	return s
}

func TestLoad(t *testing.T) {
	s, ctx := testStore(t), context.Background()
	set, err := Load(ctx, s, "1")
	if err != nil || set.Label != "run1" || len(set.Results) != 2 || set.Variant != "" {
		t.Fatalf("1: %+v, %v", set, err)
	}
	one, err := Load(ctx, s, "1/fast")
	if err != nil || one.Label != "run1/fast" || len(one.Results) != 1 || one.Results[0].Variant != "fast" {
		t.Fatalf("1/fast: %+v, %v", one, err)
	}
	if _, err := Load(ctx, s, "1/nope"); err == nil || !strings.Contains(err.Error(), "it has: fast, stock") {
		t.Fatalf("1/nope: %v", err)
	}
	if _, err := Load(ctx, s, "abc"); !usage.Is(err) {
		t.Fatalf("abc: %v, want a usage error", err)
	}
	// An exported file, narrowed after '#'.
	path := filepath.Join(t.TempDir(), "r1.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := export.Write(f, set.Run, set.Results); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fs, err := Load(ctx, s, path+"#stock")
	if err != nil || fs.Label != "r1.json#stock" || len(fs.Results) != 1 {
		t.Fatalf("file#stock: %+v, %v", fs, err)
	}
}

func TestLatestSkipsARunningRun(t *testing.T) {
	id, note, err := Latest(context.Background(), testStore(t))
	if err != nil || id != 1 || !strings.Contains(note, "run 2 is still running") {
		t.Fatalf("latest: %d %q %v", id, note, err)
	}
}

func TestPairs(t *testing.T) {
	s, ctx := testStore(t), context.Background()
	a, _ := Load(ctx, s, "1")
	b, _ := Load(ctx, s, "2")
	pairs, err := Pairs(a, b)
	if err != nil || len(pairs) != 1 || pairs[0][0].Label != "run1/stock" || pairs[0][1].Label != "run2/stock" {
		t.Fatalf("1 vs 2: %+v, %v", pairs, err)
	}
	one, _ := Load(ctx, s, "1/fast")
	if _, err := Pairs(one, b); !usage.Is(err) || !strings.Contains(err.Error(), "run1/fast names a variant and run2 does not") {
		t.Fatalf("a variant against a run: %v", err)
	}
	if pairs, err := Pairs(one, mustNarrow(t, b, "stock")); err != nil || len(pairs) != 1 || pairs[0][0].Label != "run1/fast" {
		t.Fatalf("variant against variant: %+v, %v", pairs, err)
	}
	if _, err := Pairs(one.withVariantsOnly(), b.withVariantsOnly()); err == nil || !strings.Contains(err.Error(), "no variant in common") {
		t.Fatalf("nothing in common: %v", err)
	}
}

func mustNarrow(t *testing.T, s *Set, v string) *Set {
	n, err := s.Narrow(v)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// withVariantsOnly is s as a whole set (no variant named).
func (s *Set) withVariantsOnly() *Set { c := *s; c.Variant = ""; return &c }

// A run id no run can have (0, -1) is a usage error naming it, like any
// malformed id (it read as the store's "no run 0", exit 1); a positive
// id the store does not hold is the store's "no run N", a usage error too.
func TestLoadRefusesImpossibleIDs(t *testing.T) {
	s, ctx := testStore(t), context.Background()
	for _, arg := range []string{"0", "-1", "0/stock", "-7/fast"} {
		if _, err := Load(ctx, s, arg); !usage.Is(err) || !strings.Contains(err.Error(), "is not a run id") {
			t.Errorf("%s: %v, want a usage error", arg, err)
		}
	}
	if _, err := Load(ctx, s, "99"); !usage.Is(err) || !strings.Contains(err.Error(), "no run 99") {
		t.Errorf("99: %v, want the store's no run 99, a usage error", err)
	}
}

// A word that is no set (a directory, an experiment's YAML, a name) is
// refused by CheckFiles as a usage error naming it, before any store is
// opened; runs and exported files pass.
func TestCheckFilesRefusesWhatIsNoSet(t *testing.T) {
	dir := t.TempDir()
	yaml := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(yaml, []byte("experiment: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]string{
		dir:     "is a directory, not a set to compare",
		yaml:    "is a file, not a set to compare",
		"stock": "is neither a run id",
		"0":     "",
	} {
		err := CheckFiles([]string{"12", arg})
		if err == nil || !usage.Is(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strconv.Quote(arg)) {
			t.Errorf("CheckFiles(12, %s): %v, want a usage error naming it: %s", arg, err, want)
		}
	}
	if err := CheckFiles([]string{"12", "13/stock"}); err != nil {
		t.Errorf("runs refused: %v", err)
	}
}
