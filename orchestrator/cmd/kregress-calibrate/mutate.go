package main

// Mutation rows: each weakens one decision rule the way a careless change
// would (dropping a correction, a check or a margin) and runs its row again.
// The weakened row must miss its goal: a goal that a broken rule meets
// proves nothing. A mutation row is met when its row misses.

// mutationPrefix starts every mutation scenario's name (-mutate runs
// only those).
const mutationPrefix = "mutation"

// mutant is row r, computed with rule weakened as what says, as a
// mutation row.
func mutant(what string, r Row) Row {
	return Row{
		Scenario: "MUTATION (" + what + "): " + r.Scenario,
		Figure:   r.Figure,
		Goal:     "must miss: " + r.Goal,
		Met:      !r.Met,
	}
}

func init() {
	scenarios = append(scenarios,
		Scenario{Name: "changepoints", Run: func(trials int, seed int64) []Row { return changepointRows(trials, seed, false) }},
		Scenario{Name: mutationPrefix + "-changepoints", Run: func(trials int, seed int64) []Row { return changepointRows(trials, seed, true) }},
		Scenario{Name: "titled-flakes", Run: func(trials int, seed int64) []Row { return titledFlakeRows(trials, seed, false) }},
		Scenario{Name: mutationPrefix + "-titled-flakes", Run: func(trials int, seed int64) []Row { return titledFlakeRows(trials, seed, true) }},
		Scenario{Name: "noise-mde", Run: func(trials int, seed int64) []Row { return mdeRows(trials, seed, false) }},
		Scenario{Name: mutationPrefix + "-noise-mde", Run: func(trials int, seed int64) []Row { return mdeRows(trials, seed, true) }},
		Scenario{Name: "nightrun", Run: func(trials int, seed int64) []Row { return nightRunRows(trials, seed, false) }},
		Scenario{Name: "nightrun-shifts", Run: nightShiftRows},
		Scenario{Name: mutationPrefix + "-nightrun", Run: func(trials int, seed int64) []Row { return nightRunRows(trials, seed, true) }},
		Scenario{Name: "noise-models", Run: func(trials int, seed int64) []Row { return noiseModelRows(trials, seed, false) }},
		Scenario{Name: mutationPrefix + "-noise-models", Run: func(trials int, seed int64) []Row { return noiseModelRows(trials, seed, true) }},
	)
}
