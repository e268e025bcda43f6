package pipeline

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// oldSchedule is Schedule as it was before sweeps: a run stored then
// must replay (resume, extend) to the very same cells.
func oldSchedule(variants []string, reps int, order Order, seed uint64) []Cell {
	cells := Interleave(variants, reps)
	if order != OrderShuffled {
		return cells
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b72656772657373))
	n := len(variants)
	for r := 0; r < reps; r++ {
		block := cells[r*n : (r+1)*n]
		rng.Shuffle(n, func(i, j int) { block[i], block[j] = block[j], block[i] })
	}
	for i := range cells {
		cells[i].Seq = i + 1
	}
	return cells
}

func TestScheduleWithoutSweepUnchanged(t *testing.T) {
	vs := []string{"stock", "a", "b"}
	for seed := uint64(1); seed <= 10; seed++ {
		for _, o := range []Order{OrderFixed, OrderShuffled} {
			if got, want := fmt.Sprint(Schedule(vs, 4, o, seed)), fmt.Sprint(oldSchedule(vs, 4, o, seed)); got != want {
				t.Fatalf("seed %d %s: %s, want %s", seed, o, got, want)
			}
		}
	}
}

// A sweep's schedule: counts x variants x repetitions cells, each
// repetition every count, each count's block every variant once, in
// sequence, the count with each cell; an extension keeps every cell the
// run has at its place.
func TestSweepSchedule(t *testing.T) {
	vs, counts := []string{"stock", "relock"}, []int{2, 8, 16}
	for _, o := range []Order{OrderFixed, OrderShuffled} {
		cells := SweepSchedule(vs, counts, 3, o, 7)
		if len(cells) != 3*3*2 {
			t.Fatalf("%s: %d cells, want 18", o, len(cells))
		}
		for i, c := range cells {
			rep, count := i/6+1, counts[(i/2)%3]
			if c.Seq != i+1 || c.Repetition != rep || c.CPUs != count {
				t.Fatalf("%s: cell %d %+v: want seq %d rep %d at %d vCPUs", o, i, c, i+1, rep, count)
			}
			if i%2 == 1 && c.Variant == cells[i-1].Variant {
				t.Fatalf("%s: block %v holds a variant twice", o, cells[i-1:i+1])
			}
		}
		more := SweepSchedule(vs, counts, 5, o, 7)
		if fmt.Sprint(more[:len(cells)]) != fmt.Sprint(cells) {
			t.Fatalf("%s: 5 repetitions moved the first 3's cells", o)
		}
	}
}

// A cell of a sweep boots at its count and records it; a cell without
// one boots as its variant was built.
func TestCellBuildAtCount(t *testing.T) {
	job := &CellJob{Variants: []VariantBuild{{Name: "stock"}}}
	job.Variants[0].Spec.CPUs = 2
	vb, ok := job.CellBuild(Cell{Variant: "stock", CPUs: 16})
	if !ok || vb.Spec.CPUs != 16 || vb.Provenance.SweepVCPUs != 16 {
		t.Fatalf("sweep cell: %v %d vCPUs, provenance %d", ok, vb.Spec.CPUs, vb.Provenance.SweepVCPUs)
	}
	if job.Variants[0].Spec.CPUs != 2 {
		t.Fatal("the variant's own build was changed")
	}
	vb, _ = job.CellBuild(Cell{Variant: "stock"})
	if vb.Spec.CPUs != 2 || vb.Provenance.SweepVCPUs != 0 {
		t.Fatalf("plain cell: %d vCPUs, provenance %d", vb.Spec.CPUs, vb.Provenance.SweepVCPUs)
	}
	job.Cells = []Cell{{Seq: 3, Variant: "stock", Repetition: 1, CPUs: 16}}
	if l, d := job.Label(0), job.CellDir(job.Cells[0]); l != "[1/1] stock at 16 vCPUs rep 1" || d != "003-stock-c16-r1" {
		t.Fatalf("label %q dir %q", l, d)
	}
}

// A stored run's sweep replays: resume and extend read it back.
func TestStoredScheduleSweep(t *testing.T) {
	s, err := StoredSchedule("repetitions: 2\norder: fixed\nseed: 1\nvm:\n  cpus: 2\n  cpus_sweep: [2, 8]\n")
	if err != nil {
		t.Fatal(err)
	}
	if cells := s.Cells([]string{"a", "b"}, 2); len(cells) != 8 || cells[2].CPUs != 8 {
		t.Fatalf("stored sweep cells %v", cells)
	}
}
