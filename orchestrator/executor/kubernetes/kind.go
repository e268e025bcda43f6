package kubernetes

import "github.com/kregress/kregress/orchestrator/config"

func init() { config.RegisterExecutor(Kind{}) }

// Kind is executor.kind kubernetes: everything kregress asks of this
// executor outside this package (config.ExecutorKind,
// pipeline.CellExecutorMaker).
type Kind struct{}

// Info implements config.ExecutorKind. kregress writes the manifest and
// stops there, so its runs do not wait; the pods run `kregress cell`,
// whose provenance does not name this kind, so it has no placement.
func (Kind) Info() config.ExecutorInfo {
	return config.ExecutorInfo{
		Name:    "kubernetes",
		Summary: "writes an Indexed Job manifest",
		KeyHelp: map[string]string{
			"executor.kubernetes.image":        "a container image with kregress on PATH and qemu-system-x86; empty: none (required by that executor)",
			"executor.kubernetes.namespace":    "the namespace of the Job",
			"executor.kubernetes.shared_claim": "the PersistentVolumeClaim (ReadWriteMany) holding executor.shared_dir; empty: none (required by that executor)",
			"executor.kubernetes.store_secret": "a Secret whose key dsn is the team store's DSN",
			"executor.kubernetes.kvm":          "device-plugin (devices.kubevirt.io/kvm) or privileged (the host's /dev/kvm)",
			"executor.kubernetes.parallelism":  "pods at once; 0: every cell at once",
		},
		NoWait: "only writes a manifest",
	}
}
