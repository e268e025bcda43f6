package main

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/orchestrator/config"
)

// addCompletions completes, in the shell completion kregress completion
// writes, what is cheap to know without a store or a host: the built-in
// experiments (-c, nightly's arguments; YAML files too), the workloads
// (--workload.name, metrics' argument), every workload's metrics
// (--metric, --primary-metrics, --noise-floor-pct's METRIC=) and the
// experiments' names (--experiment).
func addCompletions(root *cobra.Command) {
	experiments := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return config.Experiments(), cobra.ShellCompDirectiveDefault // files too: -c my.yaml
	}
	workloads := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return workload.Sorted(), cobra.ShellCompDirectiveNoFileComp
	}
	metricNames := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var names []string
		for _, w := range workload.Sorted() {
			for _, m := range workload.Metrics(w) {
				names = append(names, m.Name)
			}
		}
		slices.Sort(names)
		return slices.Compact(names), cobra.ShellCompDirectiveNoFileComp
	}
	experimentNames := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return config.Experiments(), cobra.ShellCompDirectiveNoFileComp
	}
	// --noise-floor-pct takes METRIC=PERCENT: the metric, then '='.
	metricFloors := func(c *cobra.Command, args []string, s string) ([]string, cobra.ShellCompDirective) {
		names, _ := metricNames(c, args, s)
		for i := range names {
			names[i] += "="
		}
		return names, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	root.RegisterFlagCompletionFunc("config", experiments)
	walk(root, func(c *cobra.Command) {
		for flag, f := range map[string]cobra.CompletionFunc{
			config.FlagFor("workload.name"): workloads, "metric": metricNames, config.FlagFor("primary_metrics"): metricNames,
			config.FlagFor("noise_floor_pct"): metricFloors, "experiment": experimentNames,
		} {
			if c.LocalNonPersistentFlags().Lookup(flag) != nil {
				c.RegisterFlagCompletionFunc(flag, f)
			}
		}
		switch c.CommandPath() {
		case "kregress nightly":
			c.ValidArgsFunction = experiments
		case "kregress metrics":
			c.ValidArgsFunction = workloads
		}
	})
}

// walk calls f with every command below c.
func walk(c *cobra.Command, f func(*cobra.Command)) {
	for _, sub := range c.Commands() {
		f(sub)
		walk(sub, f)
	}
}
