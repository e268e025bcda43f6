// Command kregress-bench prints the figures that size a kregress run on
// this machine: a cold kernel build, the second variant's incremental
// build, a fully cached rerun, boot-to-SSH time at 2 and 8 vCPUs beside the
// kernel's own time to reach init, and the wall time of the whole default
// experiment. It prints measurements; nothing here asserts a speed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kregress/kregress/images"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/remote"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/sqlitestore"
	"github.com/kregress/kregress/results/sqlstore"
)

func main() {
	skipCold := flag.Bool("skip-cold", false, "skip the cold build (about 5 minutes on 2 cores)")
	skipExperiment := flag.Bool("skip-experiment", false, "skip the whole default experiment")
	boots := flag.Int("boots", 3, "boots per vCPU count")
	cpuList := flag.String("cpus", "2,8", "vCPU counts to time boot-to-SSH at, comma separated")
	skipBuilds := flag.Bool("boot-only", false, "only the boot figures")
	skipGit := flag.Bool("skip-git", false, "skip the git-ref figures (a cold build of a git repository made from the tarball)")
	skipBisect := flag.Bool("skip-bisect", false, "skip the bisect figures (eight commits, about 10 minutes)")
	sensitivityBoots := flag.Int("sensitivity-boots", 8, "boots per side of the null comparison that measures what "+sensitiveExperiment+" can see (0: skip it; 16 boots of about 20 s at 8)")
	flag.Parse()
	var cpus []int
	for _, f := range strings.Split(*cpuList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "kregress-bench: -cpus %q: not a list of counts\n", *cpuList)
			os.Exit(2)
		}
		cpus = append(cpus, n)
	}
	if *skipBuilds {
		*skipCold, *skipExperiment, *skipGit, *skipBisect = true, true, true, true
		*sensitivityBoots = 0
	}
	if n := *sensitivityBoots; n < 0 || n > 0 && n < 3 {
		fmt.Fprintf(os.Stderr, "kregress-bench: -sensitivity-boots %d: 0 (skip) or at least 3\n", *sensitivityBoots)
		os.Exit(2)
	}
	if err := run(*skipCold, *skipExperiment, *skipGit, *skipBisect, *boots, cpus); err != nil {
		fmt.Fprintln(os.Stderr, "kregress-bench:", err)
		os.Exit(1)
	}
	if *sensitivityBoots == 0 {
		return
	}
	if err := benchSensitivity(context.Background(), *sensitivityBoots); err != nil {
		fmt.Fprintln(os.Stderr, "kregress-bench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(skipCold, skipExperiment, skipGit, skipBisect bool, boots int, cpuCounts []int) error {
	ctx := context.Background()
	if bin := os.Getenv("KREGRESS_BIN"); bin != "" {
		os.Setenv("KREGRESS_AGENT", filepath.Join(bin, "kagent"))
	}
	cfg, _, err := config.Load("", nil)
	if err != nil {
		return err
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		return err
	}
	fam := sel.Family
	src, _ := pipeline.Source(cfg.Kernel)
	guest, _ := images.Fragment("guest.config")
	frags := []kernel.Fragment{{Name: "guest.config", Data: guest}}
	req := func(v string) kernel.Request {
		variant, _ := fam.Variant(v)
		return kernel.Request{Source: src, Family: fam.Name, Variant: variant, BaseConfig: cfg.Kernel.BaseConfig, Fragments: frags}
	}
	fmt.Printf("host: %s, %d cores; kernel %s, %s + guest.config, make -j%d\n\n", pipeline.HostInfo().CPUModel, pipeline.HostInfo().Cores, src, cfg.Kernel.BaseConfig, cfg.Kernel.Jobs)
	fmt.Printf("%-52s %10s\n", "figure", "seconds")

	if !skipCold {
		// A fresh cache and no ccache: what a new machine pays once.
		tmp, err := os.MkdirTemp("", "kregress-bench-cache-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		b := &kernel.Builder{CacheDir: tmp, Jobs: cfg.Kernel.Jobs, Progress: func(m string) { logf("%s", m) }}
		t0 := time.Now()
		if _, err := b.Build(ctx, req("stock")); err != nil {
			return err
		}
		fmt.Printf("%-52s %10.1f\n", "cold build, stock (unpack + config + make, no ccache)", time.Since(t0).Seconds())
		t0 = time.Now()
		if _, err := b.Build(ctx, req("per-cpu-relock")); err != nil {
			return err
		}
		fmt.Printf("%-52s %10.1f\n", "second variant, per-cpu-relock (shared tree)", time.Since(t0).Seconds())
	}
	if !skipGit || !skipBisect {
		repo, err := fixture(ctx, cfg)
		if err != nil {
			return err
		}
		cold := 0.0 // known only when the git-ref figures ran
		if !skipGit {
			if cold, err = benchGitRefs(ctx, cfg, repo); err != nil {
				return err
			}
		}
		if !skipBisect {
			if err := benchBisect(ctx, cfg, repo, cold); err != nil {
				return err
			}
		}
	}
	b := &kernel.Builder{CacheDir: cfg.CacheDir, Jobs: cfg.Kernel.Jobs, CCache: true, Progress: func(m string) { logf("%s", m) }}
	for _, v := range fam.VariantNames() {
		if _, err := b.Build(ctx, req(v)); err != nil { // warms the user cache if needed
			return err
		}
	}
	t0 := time.Now()
	for _, v := range fam.VariantNames() {
		if _, err := b.Build(ctx, req(v)); err != nil {
			return err
		}
	}
	fmt.Printf("%-52s %10.2f\n", "rerun, both variants cached", time.Since(t0).Seconds())

	prep, err := pipeline.Prepare(ctx, cfg, sel, logf)
	if err != nil {
		return err
	}
	dialer := remote.SSHDialer{ClientKey: prep.Image.ClientKey, HostKey: prep.Image.HostPublic, Timeout: 5 * time.Second}
	for _, cpus := range cpuCounts {
		var ssh, initT []float64
		var onlineSeen []int
		phases := map[string][]float64{}
		for i := 0; i < boots; i++ {
			spec := prep.Variants[len(prep.Variants)-1].Spec
			spec.CPUs = cpus
			spec.MemoryMB = max(spec.MemoryMB, 256+16*cpus)
			spec.Dir, _ = os.MkdirTemp("", "kregress-bench-vm-")
			t0 := time.Now()
			in, err := vm.Start(ctx, spec)
			if err != nil {
				return err
			}
			bctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			// The cells' own way in: dial when the guest says SSH listens.
			console := pipeline.WatchConsole(bctx, in)
			g, err := pipeline.WaitAgent(bctx, dialer, in, console)
			if err != nil {
				cancel()
				in.Shutdown(ctx)
				return fmt.Errorf("boot at %d vCPUs: %w\n%s", cpus, err, in.ConsoleTail(20))
			}
			ssh = append(ssh, time.Since(t0).Seconds())
			for _, name := range pipeline.ConsolePhases() {
				if at, ok := console.At(name); ok {
					phases[name] = append(phases[name], at.Sub(t0).Seconds())
				}
			}
			cancel()
			if out, _, err := g.Run(ctx, "grep -c ^processor /proc/cpuinfo"); err == nil {
				if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
					onlineSeen = append(onlineSeen, n)
				}
			}
			g.Close()
			in.Shutdown(ctx)
			if s, ok := initTime(in.ConsolePath()); ok {
				initT = append(initT, s)
			}
			os.RemoveAll(spec.Dir)
		}
		label := fmt.Sprintf("boot to SSH ready, %d vCPUs, %s (median of %d)", cpus, prep.Accel.Accel, len(ssh))
		if cpus == 2 {
			label += " (goal <= 2.5 under TCG)"
		}
		fmt.Printf("%-52s %10s\n", label, fmtMedian(ssh))
		if len(onlineSeen) > 0 {
			fmt.Printf("%-52s %10d\n", fmt.Sprintf("  CPUs online in the guest, %d vCPUs", cpus), onlineSeen[len(onlineSeen)-1])
		}
		fmt.Printf("%-52s %10s\n", fmt.Sprintf("  kernel's own time to init (console), %d vCPUs", cpus), fmtMedian(initT))
		for _, name := range pipeline.ConsolePhases() {
			fmt.Printf("%-52s %10s\n", fmt.Sprintf("  seen on the console: %s (host clock)", name), fmtMedian(phases[name]))
		}
		if init := median(phases["/init"]); init > 0 {
			fmt.Printf("%-52s %10.2f\n", fmt.Sprintf("  SSH ready / QEMU start to /init, %d vCPUs (goal <= 1.2)", cpus), median(ssh)/init)
		}
	}

	if !skipExperiment {
		store, dir, done, err := tempStore("kregress-bench-results-")
		if err != nil {
			return err
		}
		defer done()
		t0 := time.Now()
		cfg.ResultsDir = dir // the artifacts go with the bench's own store
		id, p, err := pipeline.RunExperiment(ctx, cfg, sel, store, logf)
		if err != nil {
			return err
		}
		wall := time.Since(t0).Seconds()
		fmt.Printf("%-52s %10.1f\n", fmt.Sprintf("default experiment, cached builds (%d cells x %s)", cfg.Repetitions*len(p.Variants), cfg.Workload.Duration), wall)
		rs, err := store.Results(ctx, id)
		if err != nil {
			return err
		}
		printCellPhases(rs, wall)
	}
	return nil
}

// printCellPhases prints the median of every phase the cells stored, each
// cell's overhead (its wall time less workload and selftests) and the
// experiment's wall time as a multiple of the work it measured.
func printCellPhases(rs []*results.Result, wall float64) {
	at := map[string][]float64{}
	var names []string
	var overhead, gate []float64
	work := 0.0
	for _, r := range rs {
		ph := map[string]float64{}
		for _, p := range r.Provenance.Phases {
			if _, seen := at[p.Name]; !seen {
				names = append(names, p.Name)
			}
			at[p.Name] = append(at[p.Name], p.Seconds)
			ph[p.Name] = p.Seconds
		}
		end, ok := ph["QEMU exited"]
		start, ok2 := ph["workload start"]
		stop, ok3 := ph["workload end"]
		if !ok || !ok2 || !ok3 {
			continue
		}
		w := stop - start
		if st, ok := ph["selftests end"]; ok {
			w += st - stop
			gate = append(gate, st-stop)
		}
		work += w
		overhead = append(overhead, end-w)
	}
	for _, n := range names {
		fmt.Printf("%-52s %10s\n", "  cell phase: "+n+" (median, s after QEMU start)", fmtMedian(at[n]))
	}
	fmt.Printf("%-52s %10s\n", "  cell overhead: wall - workload - selftests (goal <= 3)", fmtMedian(overhead))
	fmt.Printf("%-52s %10s\n", "  selftest gate per variant (goal <= 60)", fmtMedian(gate))
	if work > 0 {
		fmt.Printf("%-52s %10.2f\n", "  experiment wall / (workload + selftests) (goal <= 1.3)", wall/work)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

var runInit = regexp.MustCompile(`\[\s*(\d+\.\d+)\] Run /init as init process`)

// initTime reads the kernel's timestamp of starting /init.
func initTime(console string) (float64, bool) {
	data, err := os.ReadFile(console)
	if err != nil {
		return 0, false
	}
	m := runInit.FindSubmatch(data)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	return v, err == nil
}

func fmtMedian(v []float64) string {
	if len(v) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", median(v))
}

// tempStore opens a SQLite store in a fresh directory, for figures that
// must not land in the user's store; done closes it and removes both.
func tempStore(prefix string) (*sqlstore.Store, string, func(), error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, "", nil, err
	}
	store, err := sqlitestore.Open(filepath.Join(dir, "kregress.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", nil, err
	}
	return store, dir, func() { store.Close(); os.RemoveAll(dir) }, nil
}
