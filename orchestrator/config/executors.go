package config

import (
	"runtime"
	"sort"
	"sync"
)

// LocalExecutor is the executor.kind that runs cells on this host, the
// one kind config knows itself; the others register (RegisterExecutor).
const LocalExecutor = "local"

// ExecutorCheck validates an executor's own block of a configuration
// (executor.<kind>.*, and what the kind needs of the rest), returning
// Invalid for the first bad key. Validate calls it after the checks every
// kind shares (executor.parallel, executor.shared_dir).
type ExecutorCheck func(c *Config) error

var (
	executorChecksMu sync.Mutex
	executorChecks   = map[string]ExecutorCheck{LocalExecutor: checkLocal}
)

// RegisterExecutor makes kind a valid executor.kind whose block check
// validates. Each executor package registers itself in its init, beside
// its pipeline.RegisterExecutor, so config holds no executor's rules and
// a new executor needs no change here.
func RegisterExecutor(kind string, check ExecutorCheck) {
	executorChecksMu.Lock()
	defer executorChecksMu.Unlock()
	executorChecks[kind] = check
}

// ExecutorKinds lists the registered executor kinds: local first, then
// the others sorted.
func ExecutorKinds() []string {
	executorChecksMu.Lock()
	defer executorChecksMu.Unlock()
	var kinds []string
	for k := range executorChecks {
		if k != LocalExecutor {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	return append([]string{LocalExecutor}, kinds...)
}

func executorCheck(kind string) (ExecutorCheck, bool) {
	executorChecksMu.Lock()
	defer executorChecksMu.Unlock()
	check, ok := executorChecks[kind]
	return check, ok
}

// checkLocal: parallel guests must not share the host's cores.
func checkLocal(c *Config) error {
	if c.Executor.Parallel > 1 {
		if err := FitsCores(c.Executor.Parallel, c.VM.CPUs, runtime.NumCPU()); err != nil {
			return Invalid("executor.parallel", "%v", err)
		}
	}
	return nil
}
