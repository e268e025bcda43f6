package catalog

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	wl "github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	senstable "github.com/kregress/kregress/results/sensitivity"
)

// WriteInfos writes the table `kregress experiments` prints: why, the
// line saying whether guests here run under KVM or TCG (HostAccel), then
// a row per experiment.
func WriteInfos(w io.Writer, why string, infos []Info) error {
	fmt.Fprintf(w, "%s\n\n", why)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tWORKLOAD\tCLOCK\tBOOTS\tCAN SEE (PRIMARY METRIC)\tWHAT")
	for _, e := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", e.Name, e.Workload, e.Clock, e.Repetitions, seesText(e), e.Summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", VariantWords)
	return err
}

// VariantWords says what the rstat experiments' variant names mean where
// a newcomer first meets them: "stock" is not the tree as shipped (the
// name is kept: it is in every stored run and cached kernel's key).
// TestVariantWordsMatchTheManifest keeps it true of patches/manifest.yaml.
const VariantWords = `stock, the rstat experiments' baseline, is Debian's linux-source-6.12 with the pre-6.15 conditional relock restored
(rstat/0001-restore-conditional-relock.patch): not the unmodified tree. per-cpu-relock is Debian's 6.12 as shipped
(upstream 0efc297a3c49); base, the baseline of run --patch and init, is the unmodified tree.`

// seesText is the CAN SEE column of an experiment.
func seesText(e Info) string {
	if e.NotRunnable != "" {
		return "not with these flags: " + e.NotRunnable
	}
	if len(e.Sees) == 0 {
		if len(e.Primary) == 0 {
			return "gate only: no metric judged"
		}
		return fmt.Sprintf("not measured under %s, %s clock (kregress noise -c %s)", strings.ToUpper(string(e.Accel)), e.Clock, cmp.Or(e.File, e.Name))
	}
	var parts []string
	for _, s := range e.Sees {
		switch {
		case s.MDEPct == nil && s.CV == 0:
			parts = append(parts, s.Metric+": not measured")
		case s.MDEPct == nil:
			parts = append(parts, s.Metric+": nothing at these boots")
		default:
			parts = append(parts, ">="+senstable.Percent(*s.MDEPct)+" "+s.Metric)
		}
	}
	return strings.Join(parts, ", ") + " (" + e.From + ")"
}

// MetricsQuery is what `kregress metrics` was asked: WORKLOAD (Args, at
// most one), or the experiment of -c FILE (FileGiven: -c was given, even
// as ""), resolved with Flags.
type MetricsQuery struct {
	Args      []string
	File      string
	FileGiven bool
	Flags     *pflag.FlagSet
}

// ListMetrics is the rows `kregress metrics` lists for q (MetricsOf):
// WORKLOAD's; with -c the experiment's workload and the primary metrics
// it judges (-c was ignored before: hostile audit); else every
// workload's. WORKLOAD and -c together are a usage error, as is an
// experiment that does not load.
func ListMetrics(q MetricsQuery) ([]MetricRow, error) {
	workload := ""
	if len(q.Args) == 1 {
		workload = q.Args[0]
	}
	if !q.FileGiven {
		return MetricsOf(workload, nil, "")
	}
	if workload != "" {
		return nil, usage.Errorf("give WORKLOAD or -c FILE, not both: -c lists the metrics of the experiment's workload")
	}
	cfg, _, err := config.Load(q.File, q.Flags)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	return MetricsOf("", cfg, q.File)
}

// MetricsOf is what `kregress metrics` lists: with cfg (an experiment
// given by -c file), its workload's metrics marking the primary metrics
// it judges (primary_metrics, else the workload's); else workload's
// ("": every workload's), marking each workload's own primary metrics.
// A workload the guest does not have is a usage error.
func MetricsOf(workload string, cfg *config.Config, file string) ([]MetricRow, error) {
	known := strings.Join(wl.Sorted(), ", ")
	switch {
	case cfg != nil && wl.Metrics(cfg.Workload.Name) == nil:
		return nil, usage.Errorf("%s: no workload %q (workloads: %s)", file, cfg.Workload.Name, known)
	case cfg != nil:
		var rows []MetricRow
		primary := cfg.JudgedPrimary()
		for _, s := range cfg.WorkloadMetrics() {
			rows = append(rows, MetricRow{Workload: cfg.Workload.Name, Spec: s, Judged: s.Judged(), Primary: slices.Contains(primary, s.Name)})
		}
		return rows, nil
	case workload != "" && wl.Metrics(workload) == nil:
		return nil, usage.Errorf("no workload %q (workloads: %s)", workload, known)
	case workload != "":
		return Metrics([]string{workload}, ownPrimary), nil
	}
	return Metrics(wl.Sorted(), ownPrimary), nil
}

func ownPrimary(w string) []string { return wl.Primary(w) }

// WriteMetrics writes the table `kregress metrics` prints.
func WriteMetrics(w io.Writer, rows []MetricRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKLOAD\tMETRIC\tUNIT\tBETTER\tPRIMARY\tWHAT")
	for _, r := range rows {
		primary := ""
		if r.Primary {
			primary = "primary"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Workload, r.Name, r.Unit, r.Direction, primary, r.How)
	}
	return tw.Flush()
}
