package sampler

import (
	"errors"
	"regexp"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/probe"
)

// HolderFlag is kagent run's option naming an irqs-off holder of the
// experiment's own, before the workload's name: `kagent run
// -irqsoff-holder rcu_core rstat ...`.
const HolderFlag = "-irqsoff-holder"

// holderPart is what a holder may be: part of a kernel function's name.
var holderPart = regexp.MustCompile(`^[A-Za-z0-9_.]{1,64}$`)

// CheckHolder refuses a holder that cannot be part of a function name.
func CheckHolder(substr string) error {
	if !holderPart.MatchString(substr) {
		return errors.New("want part of a kernel function's name (letters, digits, _ and .; at most 64)")
	}
	return nil
}

// HolderSpec is the share of sampling windows whose worst irqs-off
// section mentions substr, an experiment's holder (whatever its
// workload's own holder is); it needs a kernel function named like it,
// or every window would read 0 for a reason other than that code never
// holding irqs off.
func HolderSpec(substr string) metrics.Spec {
	return metrics.Define("irqsoff_holder_windows_pct", "%", metrics.Lower,
		"share of sampling windows whose longest irqs-off section was held by *"+substr+"* (workload.irqsoff_holder)",
		probe.Need{Kind: probe.FunctionPart, Name: substr})
}

// AddHolderShare adds to doc the share of its irqs-off windows held by
// substr, or the metric unavailable with the reason when kern has no
// function named like it. A document without irqs-off windows (a kernel
// without the irqsoff tracer) gets nothing: its irqs-off metrics are
// absent already, for that reason.
func AddHolderShare(doc *agentproto.Document, kern *probe.Kernel, substr string) {
	spec := HolderSpec(substr)
	if u := kern.Unmeasurable(metrics.Wants([]metrics.Spec{spec})); len(u) > 0 {
		doc.Unavailable = append(doc.Unavailable, u...)
		return
	}
	if doc.Irqsoff == nil {
		return
	}
	doc.Metrics = append(doc.Metrics, spec.Of(heldShare(doc.Irqsoff, substr)))
}
