package runlist

import (
	"os"

	"github.com/kregress/kregress/results"
)

// Vantage is the host a listing looks at runs from: its name as runs
// record it and a probe of its pids. Whether a "running" run's process
// still exists can be checked only from the run's own host
// (results.RunOwner.Liveness), so every listing, show, prune and
// mark-interrupted says what it says from a vantage.
type Vantage struct {
	Host  string
	Alive func(pid int) bool
}

// Here is this host's vantage: os.Hostname, as the store records a
// run's owner, and results.ProcessAlive.
func Here() Vantage {
	h, _ := os.Hostname()
	return Vantage{Host: h, Alive: results.ProcessAlive}
}

// Liveness says what v can tell about o's process.
func (v Vantage) Liveness(o results.RunOwner) results.Liveness {
	return o.Liveness(v.Host, v.Alive)
}
