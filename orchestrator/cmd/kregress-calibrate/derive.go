package main

// -derive-realboots: the real data set (testdata/realboots.csv) made from
// runs exported by `kregress results export RUN -o FILE.json`, every
// metric of every ok boot with its provenance in comment lines that name
// no host, user or path.

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/export"
)

// deriveRealBoots writes the data set of the exported runs in files to w;
// note (the commands that measured them) goes into its header.
func deriveRealBoots(w io.Writer, note string, files []string) error {
	var head strings.Builder
	fmt.Fprintf(&head, "# Real per-boot figures for kregress-calibrate's resampled noise model: every metric of every\n")
	fmt.Fprintf(&head, "# ok boot (cell) of the runs below, as measured (outliers and ties kept).\n")
	fmt.Fprintf(&head, "# Derived by: go run ./orchestrator/cmd/kregress-calibrate -derive-realboots -note NOTE FILE.json... > new.csv (then moved here: the harness embeds this file, so it is not written in place)\n")
	for _, l := range strings.Split(note, "\n") {
		if l != "" {
			fmt.Fprintf(&head, "# %s\n", l)
		}
	}
	var rows [][]string
	for _, path := range files {
		f, err := export.ReadFile(path)
		if err != nil {
			return err
		}
		run, rs := f.Runs()
		head.WriteString(runProvenance(run, rs))
		for _, r := range rs {
			if r.Status != results.StatusOK {
				continue
			}
			for _, m := range r.Metrics {
				rows = append(rows, []string{run.Experiment, r.Variant, strconv.Itoa(r.Repetition), m.Name, m.Unit, string(m.Direction), strconv.FormatFloat(m.Value, 'g', -1, 64)})
			}
		}
	}
	if _, err := io.WriteString(w, head.String()); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(realColumns); err != nil {
		return err
	}
	return cw.WriteAll(rows)
}

// runProvenance is the header lines of one run: what was measured, on
// what, with which kernel; nothing that names the host, a user or a path.
func runProvenance(run *results.Run, rs []*results.Result) string {
	var b strings.Builder
	status := map[results.Status]int{}
	var loads []float64
	var p *results.Provenance
	for _, r := range rs {
		status[r.Status]++
		if r.Provenance.HostLoad1 > 0 {
			loads = append(loads, r.Provenance.HostLoad1)
		}
		if p == nil && r.Status == results.StatusOK {
			p = &r.Provenance
		}
	}
	var st []string
	for _, s := range slices.Sorted(func(yield func(results.Status) bool) {
		for s := range status {
			if !yield(s) {
				return
			}
		}
	}) {
		st = append(st, fmt.Sprintf("%d %s", status[s], s))
	}
	fmt.Fprintf(&b, "# run: experiment %s (family %s, baseline %s, variants %s), started %s UTC, %s; cells: %s\n",
		run.Experiment, run.Family, run.Baseline, strings.Join(run.Variants, ", "), run.StartedAt.UTC().Format("2006-01-02 15:04"), run.Status, strings.Join(st, ", "))
	if p == nil {
		return b.String()
	}
	kernel, _, _ := strings.Cut(p.GuestKernel, " ")
	source := p.SourceID
	if i := strings.Index(source, ":sha256:"); i >= 0 {
		source = source[:i]
	}
	fmt.Fprintf(&b, "#   kernel %s (source %s, base config %s, preemption %s, %s)\n", kernel, source, p.BaseConfig, p.Preemption, p.Compiler)
	fmt.Fprintf(&b, "#   QEMU %s, accel %s, clock %s, %d vCPUs, %d MiB; host CPU %s, %d cores", p.QEMUVersion, p.Accel, p.Clock, p.VCPUs, p.MemoryMB, p.HostCPU, p.HostCores)
	if len(loads) > 0 {
		fmt.Fprintf(&b, ", load1 at cell start %.1f..%.1f (a shared host)", slices.Min(loads), slices.Max(loads))
	}
	b.WriteString("\n")
	args := p.WorkloadArgs
	if i := strings.Index(args, "kagent "); i >= 0 {
		args = "kagent " + args[i+len("kagent "):]
	}
	fmt.Fprintf(&b, "#   workload: %s\n", args)
	return b.String()
}
