package pipeline

// Cell is one boot of one variant.
type Cell struct {
	Seq        int // 1-based position in execution order
	Repetition int // 1-based
	Variant    string
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
