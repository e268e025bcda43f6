package bench

import (
	"context"
	"flag"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/desc"
)

// Workload is the workload's descriptor. Its metrics are the ones every
// workload reports; an experiment's workload.benchmark declares the rest
// (Decl.Specs) with its primary (Decl.Primary), and the host reads them
// from the experiment (config.Config.WorkloadMetrics).
var Workload = desc.Workload{
	Name: Name,
	Bind: func(fs *flag.FlagSet, env desc.Env) (func() error, desc.RunFunc) {
		p := &Params{Tracefs: env.Tracefs}
		p.Flags(fs)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return Run(ctx, *p, Exec) }
	},
	Metrics:  metrics.IrqsoffSpecs(),
	Declared: SpecParam,
}
