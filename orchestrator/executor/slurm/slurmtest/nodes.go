package slurmtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Several compute nodes on one machine: every slurmd runs in a network
// namespace of its own (its own address, so all of them use the one
// SlurmdPort) and a UTS namespace of its own (its own hostname, which is
// what a cell records as its host), and slurmctld runs in a further
// namespace holding the bridge that joins them. Every address is inside
// those namespaces; nothing is added to the host's own network. Slurm's
// commands reach slurmctld through wrappers (BinDir) that run them in
// its namespace; munged and PostgreSQL are reached over unix sockets,
// which network namespaces do not separate.

// subnet is the nodes' network: only ever configured inside the
// namespaces this package creates.
const subnet = "10.251.0"

// nsPrefix names this package's namespaces: the creating process's PID
// follows, so a later test can remove those of a test process that died
// without cleaning up, and never those of one still running.
const nsPrefix = "kregress-st"

// StartNodes starts munged, slurmctld and n slurmd (node1..nodeN, each
// one core and cpuMB of memory in slurm.conf), waits for every node to be
// idle, and sets PATH so that Slurm's commands, also those the executor
// runs, reach this cluster. The namespaces and daemons are removed when
// the test ends, also when it fails.
func StartNodes(t *testing.T, n int, memMB int) *Cluster {
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel", "squeue", "ip", "nsenter", "unshare"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s not found: apt-get install slurm-wlm munge iproute2 util-linux (make test-deps does)", bin)
		}
	}
	if os.Getuid() != 0 {
		t.Fatal("the test Slurm cluster runs its daemons as root and creates network namespaces")
	}
	removeOrphanNamespaces()
	dir, err := os.MkdirTemp("", "kregress-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	c := &Cluster{Dir: dir}
	for i := 1; i <= n; i++ {
		c.Nodes = append(c.Nodes, fmt.Sprintf("node%d", i))
	}
	c.Node = c.Nodes[0]
	tag := make([]byte, 2)
	rand.Read(tag)
	c.nsBase = fmt.Sprintf("%s%d-%s", nsPrefix, os.Getpid(), hex.EncodeToString(tag))
	// Registered first, so it runs last: after the daemons are stopped.
	t.Cleanup(func() {
		for _, ns := range c.namespaces() {
			killNamespace(ns)
			exec.Command("ip", "netns", "del", ns).Run()
		}
		os.RemoveAll(dir)
	})
	for _, d := range []string{"munge", "state", "spool", "log", "bin"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	c.network(t)
	sock := c.startMunge(t)
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte(c.multiConfig(sock, memMB)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Env = []string{"SLURM_CONF=" + conf}
	c.BinDir = filepath.Join(dir, "bin")
	for _, cmd := range []string{"sbatch", "scontrol", "scancel", "squeue", "sinfo"} {
		real, _ := exec.LookPath(cmd)
		script := fmt.Sprintf("#!/bin/sh\nexec nsenter --net=%s -- %s \"$@\"\n", netnsPath(c.ctlNS()), real)
		if err := os.WriteFile(filepath.Join(c.BinDir, cmd), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// exec.Command looks names up in this process's PATH, not the
	// command's environment.
	t.Setenv("PATH", c.BinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	c.inNamespaces(t, c.ctlNS(), "ctl", "slurmctld", "-i")
	t.Cleanup(func() { c.kill("slurmctld.pid") })
	for _, node := range c.Nodes {
		c.StartSlurmd(t, node)
		t.Cleanup(func() { c.kill("slurmd-" + node + ".pid") })
	}
	c.WaitNodes(t, "idle", c.Nodes...)
	return c
}

// namespaces are the cluster's network namespaces, slurmctld's first.
func (c *Cluster) namespaces() []string {
	ns := []string{c.ctlNS()}
	for _, n := range c.Nodes {
		ns = append(ns, c.NodeNS(n))
	}
	return ns
}

func (c *Cluster) ctlNS() string { return c.nsBase + "-ctl" }

// NodeNS is the network namespace node's slurmd runs in.
func (c *Cluster) NodeNS(node string) string { return c.nsBase + "-" + node }

// network creates the namespaces: a bridge in slurmctld's, and a veth
// pair per node from the bridge into the node's namespace.
func (c *Cluster) network(t *testing.T) {
	ctl := c.ctlNS()
	ip := func(args ...string) {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", ctl)
	ip("-n", ctl, "link", "set", "lo", "up")
	ip("-n", ctl, "link", "add", "br0", "type", "bridge")
	ip("-n", ctl, "addr", "add", subnet+".1/24", "dev", "br0")
	ip("-n", ctl, "link", "set", "br0", "up")
	for i, node := range c.Nodes {
		ns := c.NodeNS(node)
		port := fmt.Sprintf("p%d", i+1)
		ip("netns", "add", ns)
		ip("-n", ns, "link", "set", "lo", "up")
		ip("-n", ctl, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
		ip("-n", ctl, "link", "set", port, "master", "br0")
		ip("-n", ctl, "link", "set", port, "up")
		ip("-n", ns, "addr", "add", c.NodeAddr(node)+"/24", "dev", "eth0")
		ip("-n", ns, "link", "set", "eth0", "up")
	}
}

// NodeAddr is node's address (inside the cluster's namespaces).
func (c *Cluster) NodeAddr(node string) string {
	for i, n := range c.Nodes {
		if n == node {
			return fmt.Sprintf("%s.%d", subnet, i+2)
		}
	}
	return ""
}

func (c *Cluster) startMunge(t *testing.T) string {
	key := make([]byte, 1024)
	rand.Read(key)
	keyFile := filepath.Join(c.Dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(c.Dir, "munge", "munge.sock")
	// In slurmctld's namespace: a test killed before its cleanup leaves
	// nothing running outside its namespaces (removeOrphanNamespaces).
	c.run(t, "nsenter", "--net="+netnsPath(c.ctlNS()), "--", "munged", "--force", "--socket="+sock, "--key-file="+keyFile,
		"--log-file="+filepath.Join(c.Dir, "log", "munged.log"), "--pid-file="+filepath.Join(c.Dir, "munge", "munged.pid"),
		"--seed-file="+filepath.Join(c.Dir, "munge", "munged.seed"))
	t.Cleanup(func() { exec.Command("munged", "--stop", "--socket="+sock).Run() })
	return sock
}

// StartSlurmd starts node's slurmd in the node's namespaces, with the
// node's name as the hostname its tasks see (again, after StopNode).
func (c *Cluster) StartSlurmd(t *testing.T, node string) {
	t.Helper()
	os.MkdirAll(filepath.Join(c.Dir, "spool", node), 0o755)
	c.inNamespaces(t, c.NodeNS(node), node, "slurmd", "-N", node)
}

// inNamespaces runs argv in network namespace ns and a new UTS namespace
// whose hostname is host. nsenter, not `ip netns exec`: that mounts a
// sysfs of the namespace's own over /sys, without the cgroup tree that
// slurmd's cgroup plugin insists on reading.
func (c *Cluster) inNamespaces(t *testing.T, ns, host string, argv ...string) {
	t.Helper()
	c.run(t, "nsenter", append([]string{"--net=" + netnsPath(ns), "--", "unshare", "--uts", "--",
		"sh", "-c", `hostname "$0" && exec "$@"`, host}, argv...)...)
}

func netnsPath(ns string) string { return filepath.Join("/run/netns", ns) }

// StopNode kills node's slurmd and everything else in its namespace (the
// tasks it runs: kregress cell and its QEMU), as a machine that loses
// power, and returns how many processes it killed.
func (c *Cluster) StopNode(node string) int {
	return killNamespace(c.NodeNS(node))
}

// WaitNodes waits until every one of nodes is in state (sinfo's %T:
// idle, down, drained, mixed...), for at most a minute.
func (c *Cluster) WaitNodes(t *testing.T, state string, nodes ...string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		states := c.NodeStates()
		ok := true
		for _, n := range nodes {
			ok = ok && strings.TrimSuffix(states[n], "*") == state
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nodes %v not %s after a minute: %v\n%s", nodes, state, states, c.Logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// NodeStates is sinfo's state of every node.
func (c *Cluster) NodeStates() map[string]string {
	out, _ := c.Command("sinfo", "-h", "-N", "-o", "%N %T").Output()
	states := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name, state, ok := strings.Cut(line, " "); ok {
			states[name] = state
		}
	}
	return states
}

// multiConfig is slurm.conf for the namespaced nodes: one core each (so
// an array spreads over them) and a short SlurmdTimeout, so that a
// node that dies is declared down, and its tasks NODE_FAIL, in seconds.
func (c *Cluster) multiConfig(mungeSock string, memMB int) string {
	var nodes strings.Builder
	for _, n := range c.Nodes {
		fmt.Fprintf(&nodes, "NodeName=%s NodeAddr=%s CPUs=1 RealMemory=%d State=UNKNOWN\n", n, c.NodeAddr(n), memMB)
	}
	d := c.Dir
	return fmt.Sprintf(`ClusterName=kregress-nodes
SlurmctldHost=ctl(%[1]s.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
AuthInfo=socket=%[2]s
CredType=cred/munge
StateSaveLocation=%[3]s/state
SlurmdSpoolDir=%[3]s/spool/%%n
SlurmctldPidFile=%[3]s/slurmctld.pid
SlurmdPidFile=%[3]s/slurmd-%%n.pid
SlurmctldLogFile=%[3]s/log/slurmctld.log
SlurmdLogFile=%[3]s/log/slurmd-%%n.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdTimeout=5
MinJobAge=600
KillWait=5
OverTimeLimit=0
%[4]sPartitionName=kregress Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, subnet, mungeSock, d, nodes.String())
}

// killNamespace kills every process in network namespace ns and returns
// how many there were.
func killNamespace(ns string) int {
	out, _ := exec.Command("ip", "netns", "pids", ns).Output()
	n := 0
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 && pid != os.Getpid() {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
	}
	return n
}

// alive says whether process pid runs (a zombie, killed but not yet
// reaped, does not).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "pid (comm) S ...": the state follows the last parenthesis.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// removeOrphanNamespaces removes the namespaces of earlier test processes
// that are gone (killed before their cleanup ran); a live process's stay.
func removeOrphanNamespaces() {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		rest, ok := strings.CutPrefix(name, nsPrefix)
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || pid <= 0 || alive(pid) {
			continue
		}
		killNamespace(name)
		exec.Command("ip", "netns", "del", name).Run()
	}
}
