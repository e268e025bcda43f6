package kubernetes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kregress/kregress/orchestrator/pipeline"
)

func job() *pipeline.CellJob {
	return &pipeline.CellJob{RunID: 12, Cells: pipeline.Schedule([]string{"stock", "per-cpu-relock"}, 3, pipeline.OrderFixed, 0)}
}

func options(kvm string) Options {
	return Options{Block: Block{Image: "registry.example/kregress:1", Namespace: "perf", SharedClaim: "kregress-shared",
		StoreSecret: "kregress-store", KVM: kvm, Parallelism: 4}, SharedDir: "/shared/kregress", CPUs: 4, MemoryMB: 2048}
}

// decodeStrict is how the API server's strict field validation reads a
// manifest: an unknown or misspelt field is an error.
func decodeStrict(t *testing.T, data []byte) *batchv1.Job {
	t.Helper()
	var j batchv1.Job
	if err := yaml.UnmarshalStrict(data, &j); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, data)
	}
	return &j
}

func TestManifestDecodesStrictly(t *testing.T) {
	data, err := Render(Manifest(job(), "/shared/kregress/results/artifacts/run-12/kubernetes/job.json", options("device-plugin")))
	if err != nil {
		t.Fatal(err)
	}
	j := decodeStrict(t, data)
	if j.Kind != "Job" || j.APIVersion != "batch/v1" || j.Name != "kregress-run-12" || j.Namespace != "perf" {
		t.Fatalf("object %s %s %s/%s", j.APIVersion, j.Kind, j.Namespace, j.Name)
	}
	s := j.Spec
	if *s.Completions != 6 || *s.Parallelism != 4 || *s.CompletionMode != batchv1.IndexedCompletion || *s.BackoffLimitPerIndex != 1 {
		t.Fatalf("spec: completions %d parallelism %d mode %s backoff per index %d", *s.Completions, *s.Parallelism, *s.CompletionMode, *s.BackoffLimitPerIndex)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
		t.Fatalf("pod: restart %s, %d containers", pod.RestartPolicy, len(pod.Containers))
	}
	c := pod.Containers[0]
	cmd := strings.Join(c.Command, " ")
	if !strings.Contains(cmd, `kregress cell --job "$0" --index "$JOB_COMPLETION_INDEX"`) || c.Command[len(c.Command)-1] != "/shared/kregress/results/artifacts/run-12/kubernetes/job.json" {
		t.Fatalf("command %q", c.Command)
	}
	if len(c.Env) != 1 || c.Env[0].Name != "KREGRESS_STORE" || c.Env[0].ValueFrom.SecretKeyRef.Name != "kregress-store" || c.Env[0].ValueFrom.SecretKeyRef.Key != "dsn" {
		t.Fatalf("the store's DSN does not come from the Secret: %+v", c.Env)
	}
	if q := c.Resources.Limits[KVMResource]; q.Value() != 1 {
		t.Fatalf("no %s limit: %v", KVMResource, c.Resources.Limits)
	}
	if c.Resources.Requests.Cpu().Value() != 4 || c.Resources.Requests.Memory().Value() != (2048+memoryOverheadMB)<<20 {
		t.Fatalf("requests %v", c.Resources.Requests)
	}
	if c.SecurityContext != nil {
		t.Fatal("device-plugin pods must not be privileged")
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/shared/kregress" || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "kregress-shared" {
		t.Fatalf("shared volume: %+v %+v", c.VolumeMounts, pod.Volumes)
	}
	if strings.Contains(string(data), "postgres://") {
		t.Fatal("a DSN in the manifest")
	}
}

func TestManifestPrivilegedKVM(t *testing.T) {
	data, _ := Render(Manifest(job(), "/shared/job.json", options("privileged")))
	j := decodeStrict(t, data)
	c := j.Spec.Template.Spec.Containers[0]
	if c.SecurityContext == nil || !*c.SecurityContext.Privileged {
		t.Fatal("not privileged")
	}
	if _, ok := c.Resources.Limits[KVMResource]; ok {
		t.Fatal("privileged pods need no device plugin resource")
	}
	vols := j.Spec.Template.Spec.Volumes
	if len(vols) != 2 || vols[1].HostPath == nil || vols[1].HostPath.Path != "/dev/kvm" {
		t.Fatalf("volumes %+v", vols)
	}
}

// executor.kubernetes.parallelism bounds the pods at once: 0 and any
// number above the cells' run every cell at once, one pod each.
func TestManifestParallelism(t *testing.T) {
	for set, want := range map[int]int32{0: 6, 1: 1, 4: 4, 6: 6, 100: 6, -3: 6} {
		o := options("device-plugin")
		o.Parallelism = set
		data, err := Render(Manifest(job(), "/shared/job.json", o))
		if err != nil {
			t.Fatal(err)
		}
		s := decodeStrict(t, data).Spec
		if *s.Parallelism != want || *s.Completions != 6 {
			t.Errorf("parallelism %d: %d pods at once of %d, want %d of 6", set, *s.Parallelism, *s.Completions, want)
		}
	}
}

func TestExecutorWritesManifestAndDetaches(t *testing.T) {
	j := job()
	j.ArtifactsDir = filepath.Join(t.TempDir(), "run-12")
	e := &Executor{Options: options("device-plugin"), Report: func(string, ...any) {}}
	if err := e.RunCells(context.Background(), j, nil); err != pipeline.ErrDetached {
		t.Fatalf("RunCells: %v, want detached", err)
	}
	data, err := os.ReadFile(filepath.Join(j.ArtifactsDir, "kubernetes", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got := decodeStrict(t, data)
	if want := filepath.Join(j.ArtifactsDir, "kubernetes", "job.json"); got.Spec.Template.Spec.Containers[0].Command[3] != want {
		t.Fatalf("manifest runs %v, want job file %s", got.Spec.Template.Spec.Containers[0].Command, want)
	}
	if _, err := pipeline.ReadCellJob(filepath.Join(j.ArtifactsDir, "kubernetes", "job.json")); err != nil {
		t.Fatal(err)
	}
}
