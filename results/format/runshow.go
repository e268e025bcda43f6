package format

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/kregress/kregress/internal/stats"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/runlist"
)

// RunState is what the caller could tell about a run's process: its
// status as shown ("running (process gone)") and a note on it.
type RunState struct {
	Status, Note string
}

// WriteRunShow prints a run's provenance, variant by variant (results
// show), and how to reproduce it.
func WriteRunShow(w io.Writer, run *results.Run, rs []*results.Result, state RunState) {
	fmt.Fprintf(w, "run %d: experiment %s, family %s, baseline %s, %s\n", run.ID, run.Experiment, run.Family, run.Baseline, state.Status)
	fmt.Fprintf(w, "started %s on %s (%s, %d cores), kregress %s\n", run.StartedAt.Local().Format("2006-01-02 15:04:05"), run.Host.Hostname, run.Host.CPUModel, run.Host.Cores, run.Host.Kregress)
	if state.Note != "" {
		fmt.Fprintf(w, "note: %s\n", state.Note)
	}
	byVariant := map[string][]*results.Result{}
	for _, r := range rs {
		byVariant[r.Variant] = append(byVariant[r.Variant], r)
	}
	var stale []string
	for _, name := range run.Variants {
		cells := byVariant[name]
		fmt.Fprintf(w, "\n%s\n", name)
		if len(cells) == 0 {
			fmt.Fprintln(w, "  no cell ran")
			continue
		}
		stale = append(stale, writeVariantShow(w, cells)...)
	}
	fmt.Fprintf(w, "\nreproduce:\n  kregress results show %d --config > run-%d.yaml\n  kregress run -c run-%d.yaml\n", run.ID, run.ID, run.ID)
	if len(stale) > 0 {
		fmt.Fprintf(w, "  warning: these patch files are missing or changed since the run: %s\n", strings.Join(stale, ", "))
	}
}

// writeVariantShow prints one variant's provenance (its first cell's),
// its cells' statuses, phases and kernel reports, and returns its patch
// files that are missing or changed since the run.
func writeVariantShow(w io.Writer, cells []*results.Result) (stale []string) {
	p := cells[0].Provenance
	fmt.Fprintf(w, "  source:   %s\n", p.SourceID)
	if p.GitCommit != "" {
		dirty := ""
		if p.Dirty {
			dirty = " + uncommitted changes (dirty tree)"
		}
		fmt.Fprintf(w, "  commit:   %s (%s)%s\n", p.GitCommit, p.GitDescribe, dirty)
	}
	preempt := ""
	if p.Preemption != "" {
		preempt = ", preemption " + p.Preemption
	}
	fmt.Fprintf(w, "  kernel:   %s, .config sha256 %s%s, %s\n", p.KernelKey, short(p.ConfigSHA256, 16), preempt, p.Compiler)
	for i, d := range p.PatchDetails {
		fmt.Fprintf(w, "  patch %d:  %s (sha256 %s)\n", i+1, d.Name, short(d.SHA256, 16))
		if d.Subject != "" {
			fmt.Fprintf(w, "            %q by %s", d.Subject, d.Author)
			if d.MessageID != "" {
				fmt.Fprintf(w, " <%s>", d.MessageID)
			}
			fmt.Fprintln(w)
		}
		if changed(d) {
			stale = append(stale, d.Name)
		}
	}
	for _, o := range p.ApplyOffsets {
		fmt.Fprintf(w, "  offset:   %s\n", o)
	}
	fmt.Fprintf(w, "  guest:    %d vCPUs (%d possible), %d MiB, %s, clock %s, %s (%s), cmdline %q\n", p.VCPUs, p.CPUsPossible, p.MemoryMB, p.Accel, cmp.Or(p.Clock, "host"), cmp.Or(p.Machine, "q35"), p.QEMUVersion, p.Cmdline)
	statuses := map[results.Status]int{}
	for _, c := range cells {
		statuses[c.Status]++
	}
	var parts []string
	for s, n := range statuses {
		parts = append(parts, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(parts)
	fmt.Fprintf(w, "  cells:    %s\n", strings.Join(parts, ", "))
	if ph := medianPhases(cells); ph != "" {
		fmt.Fprintf(w, "  phases:   %s (median seconds after QEMU started)\n", ph)
	}
	reports := map[string]int{}
	var titles []string
	for _, c := range cells {
		for _, f := range c.Findings {
			if reports[f.Title] == 0 {
				titles = append(titles, f.Title)
			}
			reports[f.Title]++
		}
	}
	for _, t := range titles {
		fmt.Fprintf(w, "  report:   %s (%d of %d cells; excerpts in the cells' dmesg.txt and console.log)\n", t, reports[t], len(cells))
	}
	return stale
}

// changed: the patch file is not at its recorded path with its recorded
// bytes (mbox members "file#N" and embedded patches are not checked).
// The one question results show asks of the disk: a reproduction from a
// changed patch would not be the run it shows.
func changed(d results.PatchInfo) bool {
	if !strings.HasPrefix(d.Name, "/") || strings.Contains(d.Name, "#") {
		return false
	}
	data, err := os.ReadFile(d.Name)
	if err != nil {
		return true
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) != d.SHA256
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// medianPhases renders each phase's median time (the upper median: a
// time some cell recorded) over the cells that recorded it, in the order
// they happen.
func medianPhases(cells []*results.Result) string {
	at := map[string][]float64{}
	var order []string
	for _, c := range cells {
		for _, p := range c.Provenance.Phases {
			if _, ok := at[p.Name]; !ok {
				order = append(order, p.Name)
			}
			at[p.Name] = append(at[p.Name], p.Seconds)
		}
	}
	var parts []string
	for _, name := range order {
		parts = append(parts, fmt.Sprintf("%s %.2f", name, stats.UpperMedian(at[name])))
	}
	return strings.Join(parts, ", ")
}

// WriteRunHistory says, under results show, which attempts of a run's
// cells are kept but not counted (a retried task, a resumed run): hist
// is the store's History of the run; nothing when it is empty.
func WriteRunHistory(w io.Writer, hist []*results.Result) {
	if len(hist) == 0 {
		return
	}
	var parts []string
	for _, h := range hist {
		parts = append(parts, fmt.Sprintf("cell %d %s", h.Seq, h.Status))
	}
	fmt.Fprintf(w, "  history: %d other attempt(s) kept, not counted (a retried task or a resumed run): %s\n", len(hist), strings.Join(parts, ", "))
}

// WriteRunView prints results show's text: the run (WriteRunShow) and
// the attempts kept but not counted (WriteRunHistory).
func WriteRunView(w io.Writer, v runlist.RunView) {
	WriteRunShow(w, v.Run, v.Results, RunState{Status: v.Status, Note: v.Note})
	WriteRunHistory(w, v.History)
}
