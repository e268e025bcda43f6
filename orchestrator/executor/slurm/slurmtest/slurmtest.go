// Package slurmtest starts a real single-node Slurm cluster on loopback
// for tests: munged with its own key, slurmctld and slurmd with a config
// written into a temporary directory (Debian's slurm-wlm and munge; make
// test-deps installs them). Tasks run as root with proctrack/linuxproc
// and no cgroup plugins, so no systemd or cgroup delegation is needed.
package slurmtest

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/lines"
)

// Cluster is a running single-node cluster; it stops when the test ends.
type Cluster struct {
	Dir  string
	Node string
	// Nodes are the compute nodes' names (StartNodes; Start: Node only).
	Nodes []string
	// BinDir holds the wrappers that run Slurm's commands where they
	// reach slurmctld (StartNodes puts it first on PATH).
	BinDir string
	// Env points Slurm's commands (and kregress) at this cluster.
	Env []string

	nsBase string // StartNodes' namespaces' common name
}

// Start starts munged, slurmctld and slurmd, and waits for the node to be idle.
func Start(t testing.TB) *Cluster {
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel", "squeue"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s not found: apt-get install slurm-wlm munge (make test-deps does)", bin)
		}
	}
	if os.Getuid() != 0 {
		t.Fatal("the test Slurm cluster runs its daemons as root")
	}
	dir, err := os.MkdirTemp("", "kregress-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	// munged insists that its key's directory is not writable by others
	// and its socket directory is reachable.
	os.Chmod(dir, 0o755)
	c := &Cluster{Dir: dir}
	c.Node, _ = os.Hostname()
	c.Node, _, _ = strings.Cut(c.Node, ".")
	for _, d := range []string{"munge", "state", "spool", "log"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	key := make([]byte, 1024)
	rand.Read(key)
	keyFile := filepath.Join(dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge", "munge.sock")
	c.run(t, "munged", "--force", "--socket="+sock, "--key-file="+keyFile,
		"--log-file="+filepath.Join(dir, "log", "munged.log"), "--pid-file="+filepath.Join(dir, "munge", "munged.pid"),
		"--seed-file="+filepath.Join(dir, "munge", "munged.seed"))
	t.Cleanup(func() {
		exec.Command("munged", "--stop", "--socket="+sock).Run()
		os.RemoveAll(dir)
	})
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte(c.config(sock)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Env = []string{"SLURM_CONF=" + conf}
	c.run(t, "slurmctld", "-i") // -i: ignore state left by an earlier run
	t.Cleanup(func() { c.kill("slurmctld.pid") })
	c.run(t, "slurmd")
	t.Cleanup(func() { c.kill("slurmd.pid") })
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := c.Command("sinfo", "-h", "-o", "%T").CombinedOutput()
		state := strings.TrimSpace(string(out))
		if state == "idle" {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("slurm node not idle after 30 s (sinfo: %q)\n%s", state, c.Logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freePort() int {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// config is slurm.conf for one node with this host's cores and most of
// its memory.
func (c *Cluster) config(mungeSock string) string {
	memMB := 2048
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		fmt.Sscanf(lines.First(string(data)), "MemTotal: %d kB", &kb)
		memMB = max(kb/1024-1024, 1024)
	}
	d := c.Dir
	return fmt.Sprintf(`ClusterName=kregress-test
SlurmctldHost=%[1]s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
MinJobAge=600
KillWait=10
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d RealMemory=%[7]d State=UNKNOWN
PartitionName=kregress Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, c.Node, freePort(), freePort(), mungeSock, d, runtime.NumCPU(), memMB)
}

// Command is a Slurm command pointed at this cluster.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.Env...)
	return cmd
}

func (c *Cluster) run(t testing.TB, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+filepath.Join(c.Dir, "slurm.conf"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s\n%s", name, err, out, c.Logs())
	}
}

func (c *Cluster) kill(pidFile string) {
	data, err := os.ReadFile(filepath.Join(c.Dir, pidFile))
	if err != nil {
		return
	}
	var pid int
	fmt.Sscanf(string(data), "%d", &pid)
	if p, err := os.FindProcess(pid); err == nil && pid > 0 {
		p.Kill()
	}
}

// Logs is the end of the daemons' logs, for a failing test's message.
func (c *Cluster) Logs() string {
	var b bytes.Buffer
	files, _ := filepath.Glob(filepath.Join(c.Dir, "log", "*.log"))
	for _, path := range files {
		f := filepath.Base(path)
		data, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "--- %s ---\n%s\n", f, strings.Join(lines, "\n"))
	}
	return b.String()
}
