package results

import (
	"strings"
	"sync"
)

// placements maps an executor kind whose scheduler places cells on its
// nodes to how it places one ("a Slurm task"). The executors' registry
// (config.RegisterExecutor) fills it in, so that results, below the
// executors, compares cells by placement without naming any of them.
var placements sync.Map

// RegisterPlacement records how cells of executor kind are placed.
func RegisterPlacement(kind, placement string) { placements.Store(kind, placement) }

// ScheduledPlacement is how a scheduler placed the cell, from the kind
// that Executor names first ("slurm job 12_3 ..."); "" when no
// registered scheduler ran it.
func (p Provenance) ScheduledPlacement() string {
	kind, _, _ := strings.Cut(p.Executor, " ")
	if v, ok := placements.Load(kind); ok {
		return v.(string)
	}
	return ""
}
