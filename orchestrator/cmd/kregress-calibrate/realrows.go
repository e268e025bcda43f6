package main

// The real-boots counterparts of rows that drew only parametric noise:
// the nights through Night.Run, the power behind the change run and diff
// state, and the udelay case. Each keeps its row's product code path and
// goal; its boots are resampled whole from the real data set's cells
// (realdata.go), its change applied as a factor.

func init() {
	scenarios = append(scenarios,
		Scenario{Name: "nightrun-real-boots", Run: func(trials int, seed int64) []Row { return nightRunRowsOn(trials, seed, false, true) }},
		Scenario{Name: "nightrun-shifts-real-boots", Run: func(trials int, seed int64) []Row { return nightShiftRowsOn(trials, seed, true) }},
		Scenario{Name: mutationPrefix + "-nightrun-real-boots", Run: func(trials int, seed int64) []Row { return nightRunRowsOn(trials, seed, true, true) }},
	)
}
