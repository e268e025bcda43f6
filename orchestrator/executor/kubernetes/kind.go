package kubernetes

import (
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
)

func init() { config.RegisterExecutor(Kind{}) }

// Kind is executor.kind kubernetes: everything kregress asks of this
// executor outside this package (config.ExecutorKind,
// pipeline.CellExecutorMaker).
type Kind struct{}

// Name implements config.ExecutorKind.
func (Kind) Name() string { return "kubernetes" }

// Summary implements config.ExecutorKind.
func (Kind) Summary() string { return "writes an Indexed Job manifest" }

// KeyHelp implements config.ExecutorKind.
func (Kind) KeyHelp() map[string]string {
	return map[string]string{
		"executor.kubernetes.image":        "a container image with kregress on PATH and qemu-system-x86",
		"executor.kubernetes.namespace":    "the namespace of the Job",
		"executor.kubernetes.shared_claim": "the PersistentVolumeClaim (ReadWriteMany) holding executor.shared_dir",
		"executor.kubernetes.store_secret": "a Secret whose key dsn is the team store's DSN",
		"executor.kubernetes.kvm":          "device-plugin (devices.kubevirt.io/kvm) or privileged (the host's /dev/kvm)",
		"executor.kubernetes.parallelism":  "pods at once; 0: every cell at once",
	}
}

// Check implements config.ExecutorKind.
func (Kind) Check(c *config.Config) error { return Validate(c) }

// NoWait implements config.ExecutorKind: kregress writes the manifest
// and stops there.
func (Kind) NoWait() string { return "only writes a manifest" }

// Placement implements config.ExecutorKind: the pods run `kregress
// cell`, whose provenance does not name this kind, so no placement.
func (Kind) Placement() string { return "" }

// NewCellExecutor implements pipeline.CellExecutorMaker.
func (Kind) NewCellExecutor(cfg *config.Config, p *pipeline.Prepared, report progress.Reporter) (pipeline.CellExecutor, error) {
	return New(cfg, p, report)
}
