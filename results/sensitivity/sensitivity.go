// Package sensitivity is the one measured table of what a setup can see:
// per built-in experiment, accelerator, guest clock, vCPU count and
// workload duration, each primary metric's coefficient of variation
// between boots of one kernel, measured with `kregress noise`.
//
// The data is measured.csv, embedded. docs/sensitivity.md's table is
// rendered from it (Markdown; a test keeps the page in step) and
// `kregress experiments` reads it to say what each experiment can see on
// this host's accelerator and clock. A figure is changed in one place:
// the CSV.
package sensitivity

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kregress/kregress/results/noise"
)

//go:embed measured.csv
var measuredCSV string

// Accel is the accelerator a row was measured under.
type Accel string

const (
	TCG Accel = "tcg"
	KVM Accel = "kvm"
)

// Clock is the guest clock a row was measured with (config vm.clock).
type Clock string

const (
	HostClock   Clock = "host"
	IcountClock Clock = "icount"
)

// Setup is what a measured spread depends on besides the kernel: a
// figure measured under one setup says nothing about another.
type Setup struct {
	Experiment string
	Accel      Accel
	Clock      Clock
	CPUs       int
	Duration   time.Duration
}

// Row is one metric's measured spread under one setup.
type Row struct {
	Setup
	Metric string
	// CV is the coefficient of variation between boots.
	CV float64
	// Boots is how many boots the CV was measured from.
	Boots int
	// Date is the day it was measured (YYYY-MM-DD).
	Date string
	// Source is the letter of the measurement's note in docs/sensitivity.md.
	Source string
}

// Table is the embedded measured table, in the CSV's order.
func Table() []Row {
	rows, err := parse(measuredCSV)
	if err != nil {
		// The CSV is part of the binary and TestTableParses reads it.
		panic(err)
	}
	return rows
}

// Lookup returns the rows measured under exactly s, in table order; none
// when that setup was never measured.
func Lookup(rows []Row, s Setup) []Row {
	var out []Row
	for _, r := range rows {
		if r.Setup == s {
			out = append(out, r)
		}
	}
	return out
}

// maxRows bounds the table: it is a hand-kept list of measurements.
const maxRows = 1000

func parse(text string) ([]Row, error) {
	records, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("sensitivity: measured.csv: %w", err)
	}
	header := "experiment,accel,clock,vcpus,duration,metric,cv,boots,date,source"
	if len(records) == 0 || strings.Join(records[0], ",") != header {
		return nil, fmt.Errorf("sensitivity: measured.csv: first line must be %q", header)
	}
	if len(records) > maxRows+1 {
		return nil, fmt.Errorf("sensitivity: measured.csv: %d rows, at most %d", len(records)-1, maxRows)
	}
	var rows []Row
	for i, f := range records[1:] {
		line := i + 2
		r := Row{Setup: Setup{Experiment: f[0], Accel: Accel(f[1]), Clock: Clock(f[2])}, Metric: f[5], Date: f[8], Source: f[9]}
		if r.Accel != TCG && r.Accel != KVM {
			return nil, fmt.Errorf("sensitivity: measured.csv line %d: accel %q: want tcg or kvm", line, f[1])
		}
		if r.Clock != HostClock && r.Clock != IcountClock {
			return nil, fmt.Errorf("sensitivity: measured.csv line %d: clock %q: want host or icount", line, f[2])
		}
		if r.CPUs, err = strconv.Atoi(f[3]); err != nil || r.CPUs < 1 {
			return nil, fmt.Errorf("sensitivity: measured.csv line %d: vcpus %q: want a count", line, f[3])
		}
		if r.Duration, err = time.ParseDuration(f[4]); err != nil || r.Duration <= 0 {
			return nil, fmt.Errorf("sensitivity: measured.csv line %d: duration %q: want e.g. 10s", line, f[4])
		}
		if r.CV, err = strconv.ParseFloat(f[6], 64); err != nil || !(r.CV > 0) || math.IsInf(r.CV, 0) {
			return nil, fmt.Errorf("sensitivity: measured.csv line %d: cv %q: want a positive number", line, f[6])
		}
		if r.Boots, err = strconv.Atoi(f[7]); err != nil || r.Boots < 3 {
			return nil, fmt.Errorf("sensitivity: measured.csv line %d: boots %q: want at least 3", line, f[7])
		}
		if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
			return nil, fmt.Errorf("sensitivity: measured.csv line %d: date %q: want YYYY-MM-DD", line, f[8])
		}
		if r.Experiment == "" || r.Metric == "" || r.Source == "" {
			return nil, fmt.Errorf("sensitivity: measured.csv line %d: experiment, metric and source must not be empty", line)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// DocBoots are the boots per side docs/sensitivity.md gives each row's
// detection limit at.
var DocBoots = []int{5, 8}

// Markdown renders the table as docs/sensitivity.md shows it: per row, the
// smallest change of that metric judged as a primary one that a
// comparison finds with 80% power at DocBoots boots per side (noise.MDE, the
// simulation behind every diff's power line), and a last row saying KVM
// was not measured when no row is under KVM.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| experiment | accelerator, clock, vCPUs, workload | metric | CV | at 5 boots | at 8 boots | measured |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	var last Setup
	kvm := false
	for i, r := range rows {
		name, setup := "", ""
		if i == 0 || r.Setup != last {
			name = "`" + r.Experiment + "`"
			setup = fmt.Sprintf("%s, %s, %d, %s", strings.ToUpper(string(r.Accel)), r.Clock, r.CPUs, r.Duration)
		}
		last = r.Setup
		kvm = kvm || r.Accel == KVM
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s |", name, setup, r.Metric, strconv.FormatFloat(r.CV, 'f', -1, 64))
		for _, n := range DocBoots {
			fmt.Fprintf(&b, " %s |", Percent(noise.MDE(r.CV, n)))
		}
		fmt.Fprintf(&b, " %s, %d boots, %s |\n", r.Source, r.Boots, r.Date)
	}
	if !kvm {
		b.WriteString("| any | KVM | | not measured | | | |\n")
	}
	return b.String()
}

// Percent formats a detection limit as the docs and `kregress experiments`
// print it: two significant figures below 10%, whole percent above, and
// "none" when no change can be found at that many boots.
func Percent(mde float64) string {
	switch {
	case math.IsInf(mde, 1) || math.IsNaN(mde):
		return "none"
	case mde < 10:
		return strconv.FormatFloat(mde, 'f', 1, 64) + "%"
	default:
		return strconv.FormatFloat(mde, 'f', 0, 64) + "%"
	}
}
