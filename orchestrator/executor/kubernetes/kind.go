package kubernetes

import "github.com/kregress/kregress/orchestrator/config"

func init() { config.RegisterExecutor(Kind{}) }

// name is this kind's executor.kind and its block's key.
const name = "kubernetes"

// Block is executor.kubernetes: it shapes the Indexed Job manifest
// kregress writes (and does not apply).
type Block struct {
	// Image has kregress on PATH and qemu-system-x86 installed.
	Image     string `yaml:"image"`
	Namespace string `yaml:"namespace"`
	// SharedClaim is the PersistentVolumeClaim (ReadWriteMany) holding
	// shared_dir, mounted at the same path in every pod.
	SharedClaim string `yaml:"shared_claim"`
	// StoreSecret is a Secret whose key "dsn" is the team store's DSN.
	StoreSecret string `yaml:"store_secret"`
	// KVM: device-plugin (requests devices.kubevirt.io/kvm) or
	// privileged (a privileged pod with the host's /dev/kvm).
	KVM string `yaml:"kvm"`
	// Parallelism: pods at once; 0: every cell at once.
	Parallelism int `yaml:"parallelism"`
}

// defaults is executor.kubernetes when no layer sets a key.
func defaults() any {
	return &Block{Namespace: "default", StoreSecret: "kregress-store", KVM: "device-plugin"}
}

// blockOf is c's executor.kubernetes.
func blockOf(c *config.Config) *Block { return c.Executor.Block(name).(*Block) }

// Kind is executor.kind kubernetes: everything kregress asks of this
// executor outside this package (config.ExecutorKind,
// pipeline.CellExecutorMaker).
type Kind struct{}

// Info implements config.ExecutorKind. kregress writes the manifest and
// stops there, so its runs do not wait; the pods run `kregress cell`,
// whose provenance does not name this kind, so it has no placement.
func (Kind) Info() config.ExecutorInfo {
	return config.ExecutorInfo{
		Name:    name,
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
		Block:  defaults,
	}
}
