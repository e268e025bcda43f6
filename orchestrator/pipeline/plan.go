package pipeline

import "math/rand/v2"

// Cell is one boot of one variant.
type Cell struct {
	Seq        int // 1-based position in execution order
	Repetition int // 1-based
	Variant    string
	// CPUs is the cell's vCPU count in a sweep (vm.cpus_sweep); 0: the
	// variant's own (vm.cpus), as in every run without a sweep.
	CPUs int `json:",omitempty"`
}

// Interleave orders cells A B A B ...: every repetition runs each variant
// once before the next repetition starts, so slow drift of the host (heat,
// other load) spreads over all variants instead of biasing one.
func Interleave(variants []string, reps int) []Cell {
	var cells []Cell
	for r := 1; r <= reps; r++ {
		for _, v := range variants {
			cells = append(cells, Cell{Seq: len(cells) + 1, Repetition: r, Variant: v})
		}
	}
	return cells
}

// Order names how cells are ordered within a repetition.
type Order string

// Cell orders.
const (
	// OrderShuffled: each repetition runs every variant once (the drift
	// protection of Interleave), in an order shuffled per repetition
	// with a recorded seed, so no variant always runs first, right
	// after another one's teardown, or at a fixed phase of any periodic
	// host activity. Pinpoint randomises its order for the same reason.
	OrderShuffled Order = "shuffled"
	// OrderFixed: A B A B ..., the order the variants are listed in.
	OrderFixed Order = "fixed"
)

// Schedule orders the cells of reps repetitions of variants. With
// OrderShuffled, the same seed gives the same order.
func Schedule(variants []string, reps int, order Order, seed uint64) []Cell {
	return SweepSchedule(variants, nil, reps, order, seed)
}

// SweepSchedule orders the cells of reps repetitions of variants, each
// measured at every vCPU count of counts (none: Schedule's cells, at the
// variants' own count). A repetition runs every count in the order
// given, and at each count every variant once: variants compared at one
// count sit side by side in time, as Interleave has them. With
// OrderShuffled the variants are shuffled within each count's block;
// without counts the shuffle draws exactly as Schedule always has, so a
// stored run's order replays.
func SweepSchedule(variants []string, counts []int, reps int, order Order, seed uint64) []Cell {
	blocks := counts
	if len(blocks) == 0 {
		blocks = []int{0}
	}
	var cells []Cell
	for r := 1; r <= reps; r++ {
		for _, n := range blocks {
			for _, v := range variants {
				cells = append(cells, Cell{Seq: len(cells) + 1, Repetition: r, Variant: v, CPUs: n})
			}
		}
	}
	if order != OrderShuffled {
		return cells
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b72656772657373)) // "kregress"
	n := len(variants)
	for b := 0; b < reps*len(blocks); b++ {
		block := cells[b*n : (b+1)*n]
		rng.Shuffle(n, func(i, j int) { block[i], block[j] = block[j], block[i] })
	}
	for i := range cells {
		cells[i].Seq = i + 1
	}
	return cells
}
