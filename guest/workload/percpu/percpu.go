// Package percpu spreads a workload's actors (reader threads, exec
// chains, cgroup movers, page-faulting processes) over the guest's online
// CPUs, each pinned to its own, and tallies the CPUs on which they
// completed work. The seeds' reproducers loaded every CPU of their
// machines (a memory.stat reader and a hog per CPU, an exec chain per
// core, a remote drain of every CPU's busy batch): the contention they
// measured exists only where every CPU takes part, and left to the
// scheduler a handful of actors on many vCPUs would share a few of them.
// The tally is reported as the cpus_used metric, so that a run shows
// that it loaded the CPUs it claims to.
package percpu

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/sysinfo"
)

// PerCPU is the value of an actor-count parameter that asks for one actor
// per online CPU.
const PerCPU = 0

// Pinner binds threads to CPUs and says where a process ran: the
// running kernel's (OS), or a test's fake.
type Pinner interface {
	// Pin locks the calling goroutine to its OS thread and binds that
	// thread to cpu; processes the thread starts inherit the binding.
	Pin(cpu int) (Thread, error)
	// ProcessCPU is the CPU process pid last ran on; a zombie's too,
	// until it is reaped.
	ProcessCPU(pid int) (int, error)
}

// Thread is a thread Pinner.Pin bound, used by the goroutine that pinned
// it.
type Thread interface {
	// CPU is the CPU the thread runs on.
	CPU() (int, error)
	// Release gives the thread its former CPUs back and unlocks it.
	Release()
}

// OS is the Pinner of the running kernel: sched_setaffinity, getcpu and
// /proc/PID/stat.
type OS struct {
	// Proc is the procfs mount; empty for /proc.
	Proc string
}

// Pin binds the calling thread to cpu. Go starts no thread from a locked
// one (the runtime's template thread does), so only this goroutine and
// the processes it starts run bound.
func (OS) Pin(cpu int) (Thread, error) {
	if cpu < 0 || cpu >= sysinfo.MaxCPUs {
		return nil, fmt.Errorf("pin to CPU %d: not a CPU number below %d", cpu, sysinfo.MaxCPUs)
	}
	runtime.LockOSThread()
	old := unix.NewCPUSet(sysinfo.MaxCPUs)
	if err := unix.SchedGetaffinityDynamic(0, old); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("pin to CPU %d: read the thread's CPUs: %w", cpu, err)
	}
	set := unix.NewCPUSet(sysinfo.MaxCPUs)
	set.Set(cpu)
	if err := unix.SchedSetaffinityDynamic(0, set); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("pin to CPU %d: sched_setaffinity: %w", cpu, err)
	}
	return osThread{old: old}, nil
}

// osThread is a thread OS.Pin bound; old is the CPUs it had.
type osThread struct{ old unix.CPUSetDynamic }

func (t osThread) Release() {
	if unix.SchedSetaffinityDynamic(0, t.old) != nil {
		// Still bound: left locked, the thread exits with its
		// goroutine instead of running others on one CPU.
		return
	}
	runtime.UnlockOSThread()
}

// CPU is getcpu(2) of the calling thread.
func (osThread) CPU() (int, error) {
	cpu, err := getcpu()
	if err != nil {
		return -1, fmt.Errorf("getcpu: %w", err)
	}
	return cpu, nil
}

// getcpu is getcpu(2) without its node and cache arguments; x/sys/unix
// has no wrapper for it.
func getcpu() (int, error) {
	var cpu uint32
	if _, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); errno != 0 {
		return -1, errno
	}
	return int(cpu), nil
}

// maxStatBytes bounds a read of /proc/PID/stat: some 300 bytes, with a
// comm of at most 64.
const maxStatBytes = 4 << 10

// ProcessCPU reads field 39 (processor) of /proc/PID/stat.
func (o OS) ProcessCPU(pid int) (int, error) {
	proc := o.Proc
	if proc == "" {
		proc = "/proc"
	}
	path := filepath.Join(proc, strconv.Itoa(pid), "stat")
	f, err := os.Open(path)
	if err != nil {
		return -1, fmt.Errorf("where pid %d ran: %w", pid, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxStatBytes))
	if err != nil {
		return -1, fmt.Errorf("where pid %d ran: read %s: %w", pid, path, err)
	}
	cpu, err := StatCPU(b)
	if err != nil {
		return -1, fmt.Errorf("where pid %d ran: %s: %w", pid, path, err)
	}
	return cpu, nil
}

// WaitUnreaped blocks until process pid (a child) has exited, and leaves
// it a zombie: its /proc/PID/stat still says where it ran until it is
// reaped (exec.Cmd.Wait).
func WaitUnreaped(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				return fmt.Errorf("wait for pid %d: %w", pid, err)
			}
			return nil
		}
	}
}

// statProcessorField is the processor field's place in /proc/PID/stat,
// counted from 1 (proc(5)).
const statProcessorField = 39

// StatCPU is the processor field (39) of a /proc/PID/stat line: the CPU
// the task last ran on. The comm field (2) may hold spaces and
// parentheses, so fields are counted after its last ')'.
func StatCPU(stat []byte) (int, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return -1, errors.New("no comm field (no ')')")
	}
	// The fields after comm start at field 3 (state).
	fields := bytes.Fields(stat[end+1:])
	i := statProcessorField - 3
	if len(fields) <= i {
		return -1, fmt.Errorf("%d fields after comm, want at least %d", len(fields), i+1)
	}
	f := fields[i]
	if len(f) == 0 || len(f) > 5 || len(bytes.Trim(f, "0123456789")) != 0 {
		return -1, fmt.Errorf("processor field %.8q is not a CPU number", f)
	}
	cpu, err := strconv.Atoi(string(f))
	if err != nil || cpu >= sysinfo.MaxCPUs {
		return -1, fmt.Errorf("processor field %q is not a CPU number below %d", f, sysinfo.MaxCPUs)
	}
	return cpu, nil
}

// Spread is a workload's placement of its actors on the online CPUs and
// the tally of where they completed work. Its methods may be called from
// every actor at once.
type Spread struct {
	online []int
	pin    Pinner

	mu   sync.Mutex
	used map[int]bool
	// lost counts the reports that failed, err is the first's error:
	// a CPU not tallied makes cpus_used smaller, never larger.
	lost int
	err  error
}

// New is a spread over online (ascending CPU numbers, as
// sysinfo.ParseCPUList gives them) pinned by pin.
func New(online []int, pin Pinner) (*Spread, error) {
	if len(online) == 0 {
		return nil, errors.New("no online CPU to run actors on")
	}
	return &Spread{online: online, pin: pin, used: map[int]bool{}}, nil
}

// Online is the spread over the guest's online CPUs, pinned by the
// kernel.
func Online() (*Spread, error) {
	cpus, err := sysinfo.OnlineCPUs()
	if err != nil {
		return nil, err
	}
	return New(cpus, OS{})
}

// CPUs is the number of online CPUs the spread covers.
func (s *Spread) CPUs() int { return len(s.online) }

// Count is how many actors a count parameter asks for: n itself, or one
// per online CPU for PerCPU.
func (s *Spread) Count(n int) int {
	if n == PerCPU {
		return len(s.online)
	}
	return n
}

// CPU is the CPU actor i (counted from 0) runs on: the online CPUs in
// turn, so n actors load min(n, online) CPUs and no CPU holds two more
// actors than another.
func (s *Spread) CPU(i int) int { return s.online[i%len(s.online)] }

// Pin binds the calling goroutine's thread to actor i's CPU (see
// Pinner.Pin); the goroutine calls the actor's Release before it
// returns.
func (s *Spread) Pin(i int) (*Actor, error) {
	t, err := s.pin.Pin(s.CPU(i))
	if err != nil {
		return nil, fmt.Errorf("actor %d: %w", i, err)
	}
	return &Actor{s: s, t: t}, nil
}

// Actor is one pinned actor of a Spread, used by its goroutine.
type Actor struct {
	s *Spread
	t Thread
}

// Release unpins the actor's thread.
func (a *Actor) Release() { a.t.Release() }

// Ran tallies the CPU the actor's thread runs on: the actor calls it
// once it has completed work.
func (a *Actor) Ran() {
	cpu, err := a.t.CPU()
	a.s.tally(cpu, err)
}

// RanProcess tallies the CPU process pid ran on: an actor calls it for a
// process it started pinned, once that process has completed work (before
// it is reaped: WaitUnreaped), or while it still runs. The process keeps
// its binding when the actor is released.
func (s *Spread) RanProcess(pid int) {
	cpu, err := s.pin.ProcessCPU(pid)
	s.tally(cpu, err)
}

func (s *Spread) tally(cpu int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.lost++
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.used[cpu] = true
}

// Used is the number of distinct CPUs tallied.
func (s *Spread) Used() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.used)
}

// Metric is the cpus_used metric of the tally.
func (s *Spread) Metric() agentproto.Metric { return metrics.CPUsUsed.Of(float64(s.Used())) }

// Warnings says why cpus_used may be smaller than the CPUs the actors
// ran on: reports that failed. None when every report was tallied.
func (s *Spread) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost == 0 {
		return nil
	}
	return []string{fmt.Sprintf("cpus_used: %d reports of where an actor ran failed (first: %v)", s.lost, s.err)}
}
