package vm

import (
	"fmt"
	"time"
)

// Overcommit is how a guest's vCPUs share the host cores its QEMU may
// run on. Every vCPU is a host thread (under TCG and KVM alike), so a
// guest with more vCPUs than cores runs them in turns: work that needs
// all of them (an RCU grace period, a cpuset rebuild, a selftest that
// pins a task to each CPU) takes up to that many times longer than on a
// host with a core per vCPU, and longer still on a loaded host.
type Overcommit struct {
	VCPUs     int
	HostCores int
}

// Factor is the whole multiple, at least 1, that the time of work in
// the guest is stretched by: vCPUs per core, rounded up.
func (o Overcommit) Factor() int {
	if o.HostCores <= 0 || o.VCPUs <= o.HostCores {
		return 1
	}
	return (o.VCPUs + o.HostCores - 1) / o.HostCores
}

// Stretch is d times Factor: the bound of a step that takes d on a guest
// with a core per vCPU.
func (o Overcommit) Stretch(d time.Duration) time.Duration {
	return d * time.Duration(o.Factor())
}

// Explain says how nominal became Stretch(nominal), for an error that
// quotes the stretched bound; empty when nothing was stretched.
func (o Overcommit) Explain(nominal time.Duration) string {
	if o.Factor() == 1 {
		return ""
	}
	cores := "cores"
	if o.HostCores == 1 {
		cores = "core"
	}
	return fmt.Sprintf("%s times %d: %d vCPUs on %d host %s", nominal, o.Factor(), o.VCPUs, o.HostCores, cores)
}
