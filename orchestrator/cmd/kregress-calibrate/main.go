// Command kregress-calibrate runs the decision rules of kregress (compare,
// the nightly's judge, bisect's search, noise) on simulated data through
// the product's own code and prints one table: each scenario, the figure
// measured, and the goal beside it. It exits 1 when any row misses its
// goal. It is a calibration bench, not a timed test: `make calibrate`.
//
// Each file of this package registers its scenarios with register in an
// init function, so the verdict rows and the bisect rows live apart.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// Row is one line of the calibration table.
type Row struct {
	Scenario string // what was simulated
	Figure   string // what was measured, as printed
	Goal     string // the goal, as printed
	Met      bool   // whether Figure meets Goal
}

// Scenario is a named group of rows; Run gets the trial count and seed.
type Scenario struct {
	Name string
	Run  func(trials int, seed int64) []Row
}

var scenarios []Scenario

func register(s Scenario) { scenarios = append(scenarios, s) }

func main() {
	trials := flag.Int("trials", 2000, "simulated trials per scenario")
	seed := flag.Int64("seed", 1, "random seed (the table is reproducible for a seed)")
	only := flag.String("only", "", "run only scenarios whose name contains this text")
	flag.Parse()
	if *trials < 100 {
		fmt.Fprintln(os.Stderr, "kregress-calibrate: -trials must be at least 100")
		os.Exit(2)
	}
	sort.SliceStable(scenarios, func(i, j int) bool { return scenarios[i].Name < scenarios[j].Name })
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tfigure\tgoal\tmet")
	missed, ran := 0, 0
	for _, s := range scenarios {
		if *only != "" && !strings.Contains(s.Name, *only) {
			continue
		}
		for _, r := range s.Run(*trials, *seed) {
			ran++
			mark := "yes"
			if !r.Met {
				mark = "NO"
				missed++
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Scenario, r.Figure, r.Goal, mark)
		}
	}
	tw.Flush()
	if ran == 0 {
		fmt.Println("no scenario ran: nothing is calibrated")
		os.Exit(1)
	}
	if missed > 0 {
		fmt.Printf("%d row(s) miss their goal\n", missed)
		os.Exit(1)
	}
	fmt.Println("every row meets its goal")
}
