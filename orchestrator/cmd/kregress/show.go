package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/export"
	"github.com/kregress/kregress/results/store"
)

func newResultsShow() *cobra.Command {
	var printConfig bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "what a run measured: each variant's source, commit, patches (subject, author, Message-Id), kernel and cells, and a command that reproduces it",
		Example: `  kregress results show 12
  kregress results show 12 --config > run12.yaml && kregress run -c run12.yaml   # run it again`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, run, rs, err := loadRunArg(cmd, args[0])
			if err != nil {
				return err
			}
			defer store.Close()
			if wantJSON(cmd) {
				return export.Write(cmd.OutOrStdout(), run, rs)
			}
			if printConfig {
				text, note := reproducibleConfig(run.Config)
				if note != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "kregress: run %d: %s\n", run.ID, note)
				}
				fmt.Fprint(cmd.OutOrStdout(), text)
				return nil
			}
			writeRunShow(cmd.OutOrStdout(), run, rs)
			// Retried or resumed cells: the attempts that are not the
			// cell's result are kept, and said to be there.
			if hist, err := store.History(cmd.Context(), run.ID); err == nil && len(hist) > 0 {
				var parts []string
				for _, h := range hist {
					parts = append(parts, fmt.Sprintf("cell %d %s", h.Seq, h.Status))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "  history: %d other attempt(s) kept, not counted (a retried task or a resumed run): %s\n", len(hist), strings.Join(parts, ", "))
			}
			return nil
		},
	}
	jsonFlag(cmd)
	cmd.Flags().Lookup("json").Usage = "print the run and every cell's result as JSON (-f json): the document results export writes (and results import reads)"
	cmd.Flags().BoolVar(&printConfig, "config", false, "print only the run's resolved configuration (refs pinned to commits, patch paths absolute): `kregress run -c` of it reproduces the run")
	return cmd
}

// reproducibleConfig is a stored configuration as `run -c` should read it
// again. Its PostgreSQL store had its password replaced by
// store.Redacted when it was stored: reproduced as is, the run would
// connect with that marker as its password. The store is printed
// without a password (the client then takes it from PGPASSWORD or
// ~/.pgpass), with a comment and a note saying it must be supplied.
func reproducibleConfig(config string) (text, note string) {
	lines := strings.SplitAfter(config, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "store:") {
			continue // only the top-level key
		}
		var v struct {
			Store string `yaml:"store"`
		}
		if yaml.Unmarshal([]byte(line), &v) != nil || !store.IsPostgres(v.Store) || !store.HasRedactedPassword(v.Store) {
			return config, ""
		}
		bare := store.StripPassword(v.Store)
		out, err := yaml.Marshal(map[string]string{"store": bare})
		if err != nil {
			return config, ""
		}
		lines[i] = "# The store's password was redacted when the run was stored: supply it\n" +
			"# with PGPASSWORD or ~/.pgpass, or the full DSN with --store or KREGRESS_STORE.\n" + string(out)
		return strings.Join(lines, ""), fmt.Sprintf("the store's password (%s) was redacted when the run was stored and is not in this configuration: supply it with PGPASSWORD or ~/.pgpass, or the full DSN with --store or KREGRESS_STORE", bare)
	}
	return config, ""
}

// writeRunShow prints a run's provenance, variant by variant.
func writeRunShow(w io.Writer, run *results.Run, rs []*results.Result) {
	status, note := runState(run, thisHost(), processAlive)
	fmt.Fprintf(w, "run %d: experiment %s, family %s, baseline %s, %s\n", run.ID, run.Experiment, run.Family, run.Baseline, status)
	fmt.Fprintf(w, "started %s on %s (%s, %d cores), kregress %s\n", run.StartedAt.Local().Format("2006-01-02 15:04:05"), run.Host.Hostname, run.Host.CPUModel, run.Host.Cores, run.Host.Kregress)
	if note != "" {
		fmt.Fprintf(w, "note: %s\n", note)
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
	}
	fmt.Fprintf(w, "\nreproduce:\n  kregress results show %d --config > run-%d.yaml\n  kregress run -c run-%d.yaml\n", run.ID, run.ID, run.ID)
	if len(stale) > 0 {
		fmt.Fprintf(w, "  warning: these patch files are missing or changed since the run: %s\n", strings.Join(stale, ", "))
	}
}

// changed: the patch file is not at its recorded path with its recorded
// bytes (mbox members "file#N" and embedded patches are not checked).
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

// medianPhases renders each phase's median time over the cells that
// recorded it, in the order they happen.
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
		v := append([]float64(nil), at[name]...)
		sort.Float64s(v)
		parts = append(parts, fmt.Sprintf("%s %.2f", name, v[len(v)/2]))
	}
	return strings.Join(parts, ", ")
}

// loadRunArg opens the store and reads the run named by arg with its
// results; the caller closes the store.
func loadRunArg(cmd *cobra.Command, arg string) (results.Store, *results.Run, []*results.Result, error) {
	id, err := parseRunID(arg)
	if err != nil {
		return nil, nil, nil, err
	}
	_, store, err := loadReadOnly(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	run, err := store.GetRun(cmd.Context(), id)
	if err == nil {
		var rs []*results.Result
		if rs, err = store.Results(cmd.Context(), id); err == nil {
			return store, run, rs, nil
		}
	}
	store.Close()
	return nil, nil, nil, err
}
