// Package kubernetes hands an experiment's cells to a Kubernetes cluster
// as an Indexed Job: one completion index per cell, each pod running the
// same `kregress cell` as a Slurm task, storing into the team store whose
// DSN comes from a Secret. kregress writes the manifest and the job file
// into the shared directory and stops there (the run is detached): it
// does not talk to the API server. The manifest is built from the
// Kubernetes API types and checked by strict decoding in the tests; it
// has not been run against a live cluster.
package kubernetes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/results"
)

// Check implements config.ExecutorKind: executor.kubernetes (config
// checks executor.shared_dir for every kind but local).
func (Kind) Check(c *config.Config) error {
	k := blockOf(c)
	switch {
	case k.Image == "":
		return config.Invalid("executor.kubernetes.image", "must name a container image with kregress on PATH and qemu-system-x86")
	case k.SharedClaim == "":
		return config.Invalid("executor.kubernetes.shared_claim", "must name the PersistentVolumeClaim that holds executor.shared_dir")
	case k.StoreSecret == "":
		return config.Invalid("executor.kubernetes.store_secret", "must name the Secret whose key dsn is the team store's DSN")
	case k.KVM != "device-plugin" && k.KVM != "privileged":
		return config.Invalid("executor.kubernetes.kvm", "%q: want device-plugin or privileged", k.KVM)
	}
	return nil
}

// KVMResource is the extended resource of the KubeVirt device plugin
// (and of the standalone kvm device plugins) that hands a pod /dev/kvm.
const KVMResource corev1.ResourceName = "devices.kubevirt.io/kvm"

// memoryOverheadMB is what a pod needs beyond the guest: QEMU and kregress.
const memoryOverheadMB = 512

// Options shape the Job.
type Options struct {
	Block
	SharedDir string
	CPUs      int
	MemoryMB  int
}

// Manifest is the Indexed Job that runs every cell of job (its job file
// at jobFile, inside the shared volume).
func Manifest(job *pipeline.CellJob, jobFile string, o Options) *batchv1.Job {
	n := int32(len(job.Cells))
	parallel := int32(o.Parallelism)
	if parallel <= 0 || parallel > n {
		parallel = n
	}
	indexed := batchv1.IndexedCompletion
	retries := int32(1) // as the Slurm executor: one retry per cell
	maxFailed := n
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(int64(o.CPUs), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(o.MemoryMB+memoryOverheadMB)<<20, resource.BinarySI),
		},
	}
	res.Limits = res.Requests.DeepCopy()
	container := corev1.Container{
		Name:  "cell",
		Image: o.Image,
		// The shell reads the index the Job controller sets in the
		// environment; the job file is $0 so no quoting is needed.
		Command: []string{"/bin/sh", "-c", `exec kregress cell --job "$0" --index "$JOB_COMPLETION_INDEX"`, jobFile},
		Env: []corev1.EnvVar{{
			Name: "KREGRESS_STORE",
			ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: o.StoreSecret}, Key: "dsn",
			}},
		}},
		Resources:    res,
		VolumeMounts: []corev1.VolumeMount{{Name: "shared", MountPath: o.SharedDir}},
	}
	volumes := []corev1.Volume{{Name: "shared", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: o.SharedClaim},
	}}}
	if o.KVM == "privileged" {
		privileged := true
		container.SecurityContext = &corev1.SecurityContext{Privileged: &privileged}
		charDev := corev1.HostPathCharDev
		volumes = append(volumes, corev1.Volume{Name: "kvm", VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: "/dev/kvm", Type: &charDev},
		}})
		container.VolumeMounts = append(container.VolumeMounts, corev1.VolumeMount{Name: "kvm", MountPath: "/dev/kvm"})
	} else {
		one := *resource.NewQuantity(1, resource.DecimalSI)
		container.Resources.Limits[KVMResource] = one
		container.Resources.Requests[KVMResource] = one
	}
	labels := map[string]string{"app.kubernetes.io/name": "kregress", "kregress/run": fmt.Sprint(job.RunID)}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("kregress-run-%d", job.RunID), Namespace: o.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			Completions:          &n,
			Parallelism:          &parallel,
			CompletionMode:       &indexed,
			BackoffLimitPerIndex: &retries,
			MaxFailedIndexes:     &maxFailed,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{container},
					Volumes:       volumes,
				},
			},
		},
	}
}

// Render is the manifest as YAML.
func Render(j *batchv1.Job) ([]byte, error) { return yaml.Marshal(j) }

// Executor writes the manifest and detaches.
type Executor struct {
	Options
	Report progress.Reporter
}

// NewCellExecutor implements pipeline.CellExecutorMaker.
func (Kind) NewCellExecutor(cfg *config.Config, p *pipeline.Prepared, report progress.Reporter) (pipeline.CellExecutor, error) {
	return &Executor{Options: Options{Block: *blockOf(cfg), SharedDir: cfg.Executor.SharedDir,
		CPUs: cfg.VM.CPUs, MemoryMB: cfg.VM.MemoryMB}, Report: report}, nil
}

// RunCells implements pipeline.CellExecutor: it writes the job file and
// manifest.yaml beside the run's artifacts and returns ErrDetached.
func (e *Executor) RunCells(ctx context.Context, job *pipeline.CellJob, store results.Store) error {
	dir := filepath.Join(job.ArtifactsDir, "kubernetes")
	jobFile := filepath.Join(dir, "job.json")
	if err := job.WriteFile(jobFile); err != nil {
		return fmt.Errorf("executor kubernetes: %w", err)
	}
	data, err := Render(Manifest(job, jobFile, e.Options))
	if err != nil {
		return fmt.Errorf("executor kubernetes: %w", err)
	}
	manifest := filepath.Join(dir, "manifest.yaml")
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		return fmt.Errorf("executor kubernetes: %w", err)
	}
	e.Report("run %d: Indexed Job manifest for %d cells written to %s", job.RunID, len(job.Cells), manifest)
	e.Report("start it with: kubectl apply -f %s   (the Secret %s must hold the store's DSN under key dsn)", manifest, e.StoreSecret)
	return pipeline.ErrDetached
}
